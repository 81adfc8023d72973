import { generateKeyPairSync, sign } from 'node:crypto';
import { GetPublicKeyCommand, type SignCommand } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/oauth/access-token.ts';
import { derToJose, type KmsClient, loadKmsSigningKey } from '../../src/oauth/kms-signing-key.ts';
import { JwtAccessTokenVerifier } from '../../src/oauth/verifier.ts';

const ISSUER = 'https://notes.example.com';
const RESOURCE = `${ISSUER}/mcp`;

/**
 * KMS answers in the shapes of its API reference: GetPublicKey with a DER SubjectPublicKeyInfo and
 * KeySpec ECC_NIST_P256, Sign with a DER ECDSA-Sig-Value. The signing is real: a P-256 key held here.
 */
function fakeKms(keySpec = 'ECC_NIST_P256') {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const calls: string[] = [];
  const client = {
    async send(command: GetPublicKeyCommand | SignCommand) {
      calls.push(command.constructor.name);
      if (command instanceof GetPublicKeyCommand) {
        return {
          $metadata: {},
          KeyId: 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
          KeySpec: keySpec,
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
          PublicKey: new Uint8Array(publicKey.export({ format: 'der', type: 'spki' })),
        };
      }
      const input = command.input;
      expect(input).toMatchObject({ MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' });
      return {
        $metadata: {},
        KeyId: input.KeyId,
        SigningAlgorithm: 'ECDSA_SHA_256',
        Signature: new Uint8Array(
          sign('sha256', input.Message as Uint8Array, { key: privateKey, dsaEncoding: 'der' }),
        ),
      };
    },
  } as unknown as KmsClient;
  return { client, calls };
}

describe('access tokens signed by an AWS KMS key', () => {
  it('verify with the public key KMS gives, and publish it as an ES256 JWK without private parts', async () => {
    const { client, calls } = fakeKms();
    const key = await loadKmsSigningKey(client, 'alias/notes-test-oauth');
    expect(key.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(key.publicJwk.d).toBeUndefined();

    const verifier = new JwtAccessTokenVerifier({
      issuer: ISSUER,
      resource: RESOURCE,
      keys: [key.publicJwk],
    });
    for (let i = 0; i < 20; i++) {
      const token = await signAccessToken(
        key,
        { issuer: ISSUER, resource: RESOURCE },
        { accountId: 'account-1', clientId: 'client-1', scopes: ['notes:read'], grantId: `grant-${i}` },
        Date.now(),
      );
      expect(await verifier.verify(token)).toMatchObject({ accountId: 'account-1', scopes: ['notes:read'] });
    }
    expect(calls.filter((name) => name === 'GetPublicKeyCommand')).toHaveLength(1);
  });

  it('refuses a KMS key that is not an ECC_NIST_P256 signing key', async () => {
    await expect(loadKmsSigningKey(fakeKms('RSA_2048').client, 'alias/x')).rejects.toThrow(/ECC_NIST_P256/);
  });

  it('turns DER signatures into 64-byte r || s, short and padded integers included', () => {
    // r = 0x00 0x80..(33 bytes, sign padding), s = 0x01 (1 byte: a short integer)
    const r = Buffer.concat([Buffer.from([0x00, 0x80]), Buffer.alloc(31, 0x11)]);
    const s = Buffer.from([0x01]);
    const der = Buffer.concat([
      Buffer.from([0x30, 4 + r.length + s.length, 0x02, r.length]),
      r,
      Buffer.from([0x02, 1]),
      s,
    ]);
    const jose = Buffer.from(derToJose(der));
    expect(jose).toHaveLength(64);
    expect(jose.subarray(0, 32)).toEqual(r.subarray(1));
    expect(jose.subarray(32)).toEqual(Buffer.concat([Buffer.alloc(31), s]));
    expect(() => derToJose(Buffer.from([0x31, 0x00]))).toThrow(/DER/);
  });
});

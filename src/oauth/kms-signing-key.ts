import { createHash, createPublicKey } from 'node:crypto';
import {
  GetPublicKeyCommand,
  type GetPublicKeyCommandOutput,
  SignCommand,
  type SignCommandOutput,
} from '@aws-sdk/client-kms';
import type { JWK } from 'jose';
import { publicHalf, type SigningKey } from './signing-key.ts';

/** What the signer needs of `KMSClient`; tests pass a fake that signs with a local key. */
export interface KmsClient {
  send(command: GetPublicKeyCommand): Promise<GetPublicKeyCommandOutput>;
  send(command: SignCommand): Promise<SignCommandOutput>;
}

/**
 * Signs access tokens with an AWS KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY): the private key
 * never leaves KMS. The public key is read once and published as a JWK; KMS returns DER-encoded
 * ECDSA signatures, which JWS wants as r || s.
 */
export async function loadKmsSigningKey(client: KmsClient, keyId: string): Promise<SigningKey> {
  const { PublicKey, KeySpec } = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (!PublicKey || KeySpec !== 'ECC_NIST_P256') {
    throw new Error(
      `The KMS key for access tokens must be an ECC_NIST_P256 signing key (got ${KeySpec ?? 'none'})`,
    );
  }
  const jwk = createPublicKey({ key: Buffer.from(PublicKey), format: 'der', type: 'spki' }).export({
    format: 'jwk',
  }) as JWK & { x: string; y: string };
  const publicJwk = publicHalf({ ...jwk, kid: kidOf(jwk) });
  return {
    kid: publicJwk.kid as string,
    publicJwk,
    async sign(input) {
      const { Signature } = await client.send(
        new SignCommand({
          KeyId: keyId,
          Message: input,
          MessageType: 'RAW',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
      if (!Signature) throw new Error('KMS returned no signature');
      return derToJose(Signature);
    },
  };
}

/** The RFC 7638 thumbprint, as for local keys (the key ID itself is not published). */
function kidOf(jwk: { crv?: string; kty?: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

/** ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (DER) -> r || s, 32 bytes each. */
export function derToJose(der: Uint8Array): Uint8Array {
  const bytes = Buffer.from(der);
  let offset = 0;
  const expect = (tag: number) => {
    if (bytes[offset] !== tag) throw new Error('Not a DER ECDSA signature');
    offset += 1;
    let length = bytes[offset] ?? 0;
    offset += 1;
    if (length & 0x80) {
      const count = length & 0x7f;
      length = 0;
      for (let i = 0; i < count; i++) length = (length << 8) | (bytes[offset++] ?? 0);
    }
    return length;
  };
  expect(0x30);
  const integer = () => {
    const length = expect(0x02);
    let value = bytes.subarray(offset, offset + length);
    offset += length;
    while (value.length > 32 && value[0] === 0) value = value.subarray(1);
    if (value.length > 32) throw new Error('Not a P-256 signature');
    const padded = Buffer.alloc(32);
    value.copy(padded, 32 - value.length);
    return padded;
  };
  return Buffer.concat([integer(), integer()]);
}

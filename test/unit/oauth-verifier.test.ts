import { type CryptoKey, exportSPKI, importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/oauth/access-token.ts';
import {
  generateSigningKey,
  loadSigningKey,
  type LocalSigningKey as SigningKey,
} from '../../src/oauth/signing-key.ts';
import { JwtAccessTokenVerifier } from '../../src/oauth/verifier.ts';
import { InvalidAccessTokenError } from '../../src/ports/access-tokens.ts';

const ISSUER = 'https://notes.example.com';
const RESOURCE = 'https://notes.example.com/mcp';
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const nowS = Math.floor(NOW / 1000);

let key: SigningKey;
let otherKey: SigningKey;
let verifier: JwtAccessTokenVerifier;

const goodClaims = {
  iss: ISSUER,
  aud: RESOURCE,
  sub: 'account-1',
  client_id: 'client-1',
  scope: 'notes:read notes:process',
  grant_id: 'grant-1',
  jti: 'jti-1',
  iat: nowS,
  exp: nowS + 3600,
};

function mint(
  claims: JWTPayload,
  header: { alg?: string; typ?: string; kid?: string } = {},
  signer: SigningKey = key,
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signer.kid, ...header })
    .sign(signer.privateKey);
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function expectRejected(token: string, message: RegExp): Promise<void> {
  const error = await verifier.verify(token).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidAccessTokenError);
  expect((error as Error).message).toMatch(message);
  if (token.length > 10) expect((error as Error).message).not.toContain(token);
}

beforeAll(async () => {
  key = await loadSigningKey(await generateSigningKey());
  otherKey = await loadSigningKey(await generateSigningKey());
  verifier = new JwtAccessTokenVerifier({
    issuer: ISSUER,
    resource: RESOURCE,
    keys: [key.publicJwk],
    now: () => NOW,
  });
});

describe('the MCP access token verifier', () => {
  it('accepts a token it issued and returns the account, client and scopes', async () => {
    const token = await signAccessToken(
      key,
      { issuer: ISSUER, resource: RESOURCE },
      { accountId: 'account-1', clientId: 'client-1', scopes: ['notes:read', 'notes:delete'], grantId: 'g' },
      NOW,
    );
    await expect(verifier.verify(token)).resolves.toEqual({
      accountId: 'account-1',
      clientId: 'client-1',
      scopes: ['notes:read', 'notes:delete'],
      grantId: 'g',
    });
  });

  it('rejects a token for another audience', async () => {
    await expectRejected(await mint({ ...goodClaims, aud: 'https://other.example.com/mcp' }), /aud/);
  });

  it('rejects a token with no audience', async () => {
    const { aud: _aud, ...claims } = goodClaims;
    await expectRejected(await mint(claims), /aud/);
  });

  it('rejects a token whose audience lists the resource among others', async () => {
    await expectRejected(await mint({ ...goodClaims, aud: [RESOURCE, 'https://other.example.com'] }), /aud/);
  });

  it('rejects an expired token', async () => {
    await expectRejected(await mint({ ...goodClaims, iat: nowS - 7200, exp: nowS - 3600 }), /expired/);
  });

  it('accepts a token expired by less than the clock skew, but not by more', async () => {
    await expect(
      verifier.verify(await mint({ ...goodClaims, iat: nowS - 3590, exp: nowS - 10 })),
    ).resolves.toEqual(expect.objectContaining({ accountId: 'account-1' }));
    await expectRejected(await mint({ ...goodClaims, iat: nowS - 3700, exp: nowS - 100 }), /expired/);
  });

  it('rejects a token that is not valid yet, or issued in the future', async () => {
    await expectRejected(await mint({ ...goodClaims, nbf: nowS + 600 }), /not valid yet/);
    await expectRejected(await mint({ ...goodClaims, iat: nowS + 600, exp: nowS + 4200 }), /not valid yet/);
  });

  it('rejects a token from another issuer', async () => {
    await expectRejected(await mint({ ...goodClaims, iss: 'https://evil.example.com' }), /iss/);
  });

  it('rejects an unsigned token (alg none)', async () => {
    const token = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(goodClaims)}.`;
    await expectRejected(token, /ES256|malformed/);
  });

  it('rejects an HS256 token whose secret is our public key (algorithm confusion)', async () => {
    const spki = await exportSPKI((await importJWK(key.publicJwk, 'ES256')) as CryptoKey);
    for (const secret of [JSON.stringify(key.publicJwk), spki, key.publicJwk.x as string]) {
      const token = await new SignJWT(goodClaims)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
        .sign(new TextEncoder().encode(secret));
      await expectRejected(token, /ES256/);
    }
  });

  it('rejects an ID token (typ JWT, audience the client)', async () => {
    await expectRejected(
      await mint({ ...goodClaims, aud: 'client-1', nonce: 'n', auth_time: nowS }, { typ: 'JWT' }),
      /typ|aud/,
    );
  });

  it('rejects a token with the right audience but typ JWT', async () => {
    await expectRejected(await mint(goodClaims, { typ: 'JWT' }), /typ/);
  });

  it('rejects a token with no typ header', async () => {
    const token = await new SignJWT(goodClaims)
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .sign(key.privateKey);
    await expectRejected(token, /typ/);
  });

  it('rejects an svc_sk_ API key', async () => {
    await expectRejected(`svc_sk_${'A'.repeat(43)}`, /API keys are not accepted/);
  });

  it('rejects a token signed by another key, even one that claims our key ID', async () => {
    await expectRejected(await mint(goodClaims, {}, otherKey), /not signed by a key/);
    await expectRejected(await mint(goodClaims, { kid: key.kid }, otherKey), /signature/);
  });

  it('rejects a token missing the claims it must carry', async () => {
    for (const claim of ['sub', 'client_id', 'scope', 'jti', 'exp', 'grant_id']) {
      const claims: Record<string, unknown> = { ...goodClaims };
      delete claims[claim];
      await expectRejected(await mint(claims as JWTPayload), new RegExp(claim === 'exp' ? 'exp' : claim));
    }
  });

  it('rejects garbage and empty tokens', async () => {
    await expectRejected('not-a-jwt', /malformed/);
    await expectRejected('a.b.c', /malformed/);
    await expectRejected('', /No access token/);
  });

  it('rejects a token whose grant has been revoked', async () => {
    const revoked = new JwtAccessTokenVerifier({
      issuer: ISSUER,
      resource: RESOURCE,
      keys: [key.publicJwk],
      now: () => NOW,
      isGrantActive: async (accountId, grantId) => !(accountId === 'account-1' && grantId === 'grant-1'),
    });
    const error = await revoked.verify(await mint(goodClaims)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAccessTokenError);
    expect((error as Error).message).toMatch(/revoked/);
  });

  it('ignores scopes it does not know instead of granting them', async () => {
    const grant = await verifier.verify(await mint({ ...goodClaims, scope: 'notes:read admin notes:read' }));
    expect(grant.scopes).toEqual(['notes:read']);
  });

  it('accepts, at each public URL of the server, only tokens for the resource there', async () => {
    const loopback = { issuer: 'http://127.0.0.1:8787', resource: 'http://127.0.0.1:8787/mcp' };
    const localhost = { issuer: 'http://localhost:8787', resource: 'http://localhost:8787/mcp' };
    const local = new JwtAccessTokenVerifier({
      ...loopback,
      otherSites: [localhost],
      keys: [key.publicJwk],
      now: () => NOW,
    });
    // 127.0.0.1's resource, in localhost's name: 127.0.0.1's metadata names only its own issuer.
    const crossIssued = await mint({ ...goodClaims, iss: localhost.issuer, aud: loopback.resource });
    await expect(local.verify(crossIssued, loopback.resource)).rejects.toThrow(/not issued by this server/);
    const forLoopback = await mint({ ...goodClaims, iss: loopback.issuer, aud: loopback.resource });
    await expect(local.verify(forLoopback, loopback.resource)).resolves.toMatchObject({
      accountId: 'account-1',
    });
    const forLocalhost = await mint({ ...goodClaims, iss: localhost.issuer, aud: localhost.resource });
    await expect(local.verify(forLocalhost, localhost.resource)).resolves.toMatchObject({
      accountId: 'account-1',
    });
    await expect(local.verify(forLocalhost, loopback.resource)).rejects.toThrow(
      /not for this resource \(aud\)/,
    );
    await expect(local.verify(forLocalhost)).rejects.toThrow(/not for this resource \(aud\)/);
    const foreignIssuer = await mint({
      ...goodClaims,
      iss: 'http://localhost:9999',
      aud: localhost.resource,
    });
    await expect(local.verify(foreignIssuer, localhost.resource)).rejects.toThrow(
      /not issued by this server/,
    );
    // Asking for a resource the server does not serve is the caller's bug, never a pass.
    await expect(local.verify(forLocalhost, 'http://localhost:9999/mcp')).rejects.toThrow(
      /not a resource of this server/,
    );
  });

  it('is never configured with a private key or a key of another type', () => {
    expect(
      () =>
        new JwtAccessTokenVerifier({
          issuer: ISSUER,
          resource: RESOURCE,
          keys: [{ kty: 'oct', k: 'c2VjcmV0' } as JWK],
        }),
    ).toThrow(/public EC P-256/);
  });
});

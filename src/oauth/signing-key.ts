import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { SigningKeySource } from './settings.ts';

/** The one signature algorithm of our access tokens. */
export const SIGNING_ALG = 'ES256';

/** What signs access tokens: a local private JWK, or an AWS KMS key (kms-signing-key.ts). */
export interface SigningKey {
  kid: string;
  /** The public half, as published at /oauth/jwks (no `d`). */
  publicJwk: JWK;
  /** The ES256 signature of a JWS signing input, in JOSE form (r || s, 64 bytes). */
  sign(input: Uint8Array): Promise<Uint8Array>;
}

/** A signing key held in this process (the local runtime; tests). */
export interface LocalSigningKey extends SigningKey {
  privateKey: CryptoKey;
}

/**
 * Creates a new EC P-256 private JWK for signing access tokens, as the JSON that
 * `NOTES_OAUTH_SIGNING_KEY` expects. The `kid` is the key's RFC 7638 thumbprint. The local runtime
 * calls this on first start and keeps the result (owner-only) under its data directory.
 */
export async function generateSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return JSON.stringify({ ...jwk, kid: thumbprint(jwk), alg: SIGNING_ALG, use: 'sig' });
}

/** Reads `NOTES_OAUTH_SIGNING_KEY`: an EC P-256 private JWK. Errors name the problem, never the key. */
export async function loadSigningKey(json: string): Promise<LocalSigningKey> {
  const jwk = parseSigningKey(json);
  const publicJwk = publicHalf(jwk);
  let privateKey: CryptoKey;
  try {
    privateKey = (await importJWK({ ...publicJwk, d: jwk.d }, SIGNING_ALG)) as CryptoKey;
  } catch {
    throw new Error('NOTES_OAUTH_SIGNING_KEY could not be imported as an ES256 private key');
  }
  const nodeKey = createPrivateKey({ key: { ...publicJwk, d: jwk.d }, format: 'jwk' });
  return {
    kid: publicJwk.kid as string,
    privateKey,
    publicJwk,
    sign: async (input) => cryptoSign('sha256', input, { key: nodeKey, dsaEncoding: 'ieee-p1363' }),
  };
}

/** The public half of NOTES_OAUTH_SIGNING_KEY, as published and as the verifier uses it (synchronous). */
export function publicSigningJwk(json: string): JWK {
  return publicHalf(parseSigningKey(json));
}

function parseSigningKey(json: string): JWK & { d: string; x: string; y: string } {
  let jwk: JWK;
  try {
    jwk = JSON.parse(json) as JWK;
  } catch {
    throw new Error('NOTES_OAUTH_SIGNING_KEY is not valid JSON (expected an EC P-256 private JWK)');
  }
  if (typeof jwk !== 'object' || jwk === null || jwk.kty !== 'EC' || jwk.crv !== 'P-256') {
    throw new Error('NOTES_OAUTH_SIGNING_KEY must be an EC P-256 JWK (kty "EC", crv "P-256")');
  }
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new Error('NOTES_OAUTH_SIGNING_KEY must be a private JWK (with "d", "x" and "y")');
  }
  if (jwk.alg !== undefined && jwk.alg !== SIGNING_ALG) {
    throw new Error(`NOTES_OAUTH_SIGNING_KEY has alg ${String(jwk.alg)}; only ${SIGNING_ALG} is used`);
  }
  return jwk as JWK & { d: string; x: string; y: string };
}

/** Public members only; the key ID is the given `kid`, else the RFC 7638 thumbprint. */
export function publicHalf(jwk: JWK & { x: string; y: string }): JWK {
  const kid = typeof jwk.kid === 'string' && jwk.kid.length > 0 ? jwk.kid : thumbprint(jwk);
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, alg: SIGNING_ALG, use: 'sig' };
}

/** RFC 7638 JWK thumbprint of an EC key (SHA-256, base64url). */
function thumbprint(jwk: JWK): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

/** The signing key a deployment is configured with (local JWK, or AWS KMS on Lambda). */
export async function signingKeyFrom(source: SigningKeySource): Promise<SigningKey> {
  if (source.kind === 'jwk') return loadSigningKey(source.json);
  const [{ KMSClient }, { loadKmsSigningKey }] = await Promise.all([
    import('@aws-sdk/client-kms'),
    import('./kms-signing-key.ts'),
  ]);
  return loadKmsSigningKey(new KMSClient({ maxAttempts: 3 }), source.keyId);
}

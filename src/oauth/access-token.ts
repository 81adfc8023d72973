import { randomUUID } from 'node:crypto';
import type { McpScope } from '../domain/scopes.ts';
import { formatScopes } from './scopes.ts';
import { lifetimes } from './settings.ts';
import { SIGNING_ALG, type SigningKey } from './signing-key.ts';

/** The RFC 9068 media type of our access tokens' `typ` header. */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface AccessTokenClaims {
  accountId: string;
  clientId: string;
  scopes: readonly McpScope[];
  grantId: string;
}

/**
 * A JWT access token (RFC 9068): ES256, `typ: at+jwt`, iss, aud = the MCP resource, sub = the account,
 * client_id, scope, iat, exp, jti, and `grant_id` (the consent it came from, so that revoking the
 * grant revokes the token).
 */
export async function signAccessToken(
  key: SigningKey,
  audience: { issuer: string; resource: string },
  claims: AccessTokenClaims,
  now: number,
): Promise<string> {
  const iat = Math.floor(now / 1000);
  const header = { alg: SIGNING_ALG, kid: key.kid, typ: ACCESS_TOKEN_TYP };
  const payload = {
    iss: audience.issuer,
    aud: audience.resource,
    sub: claims.accountId,
    iat,
    exp: iat + lifetimes.accessToken,
    jti: randomUUID(),
    client_id: claims.clientId,
    scope: formatScopes(claims.scopes),
    grant_id: claims.grantId,
  };
  // A compact JWS assembled here (rather than with jose's SignJWT) so that the signature can come
  // from AWS KMS, where the private key never leaves the service.
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const signature = await key.sign(new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

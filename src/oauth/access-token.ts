import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { McpScope } from '../oauth-scopes.ts';
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
  return new SignJWT({
    client_id: claims.clientId,
    scope: formatScopes(claims.scopes),
    grant_id: claims.grantId,
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: ACCESS_TOKEN_TYP })
    .setIssuer(audience.issuer)
    .setAudience(audience.resource)
    .setSubject(claims.accountId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetimes.accessToken)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

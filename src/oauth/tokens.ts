import { createLocalJWKSet, jwtVerify } from 'jose';
import { API_KEY_PREFIX } from '../domain/accounts.ts';
import type { McpScope } from '../domain/scopes.ts';
import { ACCESS_TOKEN_TYP, signAccessToken } from './access-token.ts';
import type { OAuthDeps } from './deps.ts';
import { OAuthError } from './errors.ts';
import { WEB_APP_CLIENT_ID } from './first-party.ts';
import { verifyS256 } from './pkce.ts';
import { formatScopes, narrowScopes, unionScopes } from './scopes.ts';
import { hashSecret, newSecret } from './secrets.ts';
import { endSignInAndItsGrants } from './sessions.ts';
import { issuerOfResource, lifetimes } from './settings.ts';
import { credentialLive } from './sign-in-session.ts';
import { SIGNING_ALG } from './signing-key.ts';
import type { AuthorizationCodeRecord, GrantRecord } from './store.ts';

/** RFC 6749 section 5.1. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** POST /oauth/token: `authorization_code` and `refresh_token` grants, for public clients. */
export async function tokenRequest(deps: OAuthDeps, form: URLSearchParams): Promise<TokenResponse> {
  const grantType = required(form, 'grant_type');
  switch (grantType) {
    case 'authorization_code':
      return exchangeCode(deps, form);
    case 'refresh_token':
      return refresh(deps, form);
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        'Supported grant types: authorization_code, refresh_token',
      );
  }
}

/**
 * The code is marked used before anything else is checked (one atomic write), so a code is good for
 * exactly one attempt, however that attempt fails (a missing or wrong code_verifier included).
 * Presenting a used code again revokes the grant, and with it every token the first exchange issued
 * (RFC 6749 section 4.1.2, RFC 9700 section 4.5).
 */
async function exchangeCode(deps: OAuthDeps, form: URLSearchParams): Promise<TokenResponse> {
  const code = required(form, 'code');
  const now = deps.now();
  const redemption = await deps.store.redeemCode(hashSecret(code), now);
  if (redemption.outcome === 'unknown') {
    throw new OAuthError('invalid_grant', 'The authorization code is invalid or has expired');
  }
  const record = redemption.record;
  if (redemption.outcome === 'reused') {
    if (issuedTokens(record)) await deps.store.revokeGrant(record.account_id, record.grant_id, now);
    throw new OAuthError(
      'invalid_grant',
      'The authorization code was already used; the tokens issued with it have been revoked',
    );
  }
  try {
    checkCodeExchange(form, record, now, deps.settings.issuer);
  } catch (error) {
    // The code is spent. A grant made for it ends with it; a step-up code leaves the client's existing
    // grant as it was, since nothing was issued from this code.
    if (!record.widens_grant) await deps.store.revokeGrant(record.account_id, record.grant_id, now);
    throw error;
  }
  let grant = await activeGrant(deps, record.account_id, record.grant_id, now);
  // Recorded before the tokens exist: a reuse after a failure past this point still revokes.
  await deps.store.markCodeIssued(record.code_hash, now);
  if (record.widens_grant) {
    const scopes = unionScopes(grant.scopes, record.scopes);
    if (!(await deps.store.settleStepUp(grant.account_id, grant.grant_id, scopes))) {
      throw new OAuthError('invalid_grant', 'The authorization was revoked');
    }
    grant = { ...grant, scopes };
  }
  return issueTokens(deps, grant, record.scopes, now);
}

/**
 * Whether the first exchange of a used code issued tokens, which its reuse then revokes. A step-up code
 * whose first exchange failed issued none (the code records a success), and a client that retries a
 * failed exchange must not lose the grant it already had. A new grant's failed code already ended it.
 */
function issuedTokens(record: AuthorizationCodeRecord): boolean {
  return !record.widens_grant || record.issued_at !== undefined;
}

/** The checks of RFC 6749 section 4.1.3 and RFC 7636 section 4.6, on a code already spent. */
function checkCodeExchange(
  form: URLSearchParams,
  record: AuthorizationCodeRecord,
  now: number,
  issuer: string,
): void {
  const clientId = required(form, 'client_id');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = required(form, 'code_verifier');
  const resource = optional(form, 'resource');
  if (record.expires_at_s * 1000 <= now)
    throw new OAuthError('invalid_grant', 'The authorization code has expired');
  if (record.client_id !== clientId)
    throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
  if (record.issuer !== undefined && record.issuer !== issuer) {
    throw new OAuthError(
      'invalid_grant',
      `The authorization code was issued by ${record.issuer}: redeem it there`,
    );
  }
  if (record.redirect_uri !== redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
  }
  if (!verifyS256(verifier, record.code_challenge))
    throw new OAuthError('invalid_grant', 'PKCE verification failed (code_verifier)');
  if (resource !== undefined && resource !== record.resource) {
    throw new OAuthError('invalid_target', `The code was issued for ${record.resource}`);
  }
}

/**
 * Rotating refresh tokens (OAuth 2.1 section 4.3.1): each use returns a new refresh token and retires
 * the old one; presenting a retired one again revokes the whole family (the grant). A grant the MCP
 * server recorded a step-up on is not refreshed until the user has decided on the step-up at the
 * consent page (see `GrantRecord.step_up_scopes`).
 */
async function refresh(deps: OAuthDeps, form: URLSearchParams): Promise<TokenResponse> {
  const token = required(form, 'refresh_token');
  // Public clients may leave client_id out here (RFC 6749 section 3.2.1); when sent, it must match.
  const clientId = optional(form, 'client_id');
  const resource = optional(form, 'resource');
  const scope = optional(form, 'scope');
  const now = deps.now();
  const hash = hashSecret(token);
  const record = await deps.store.getRefreshToken(hash);
  if (!record) throw new OAuthError('invalid_grant', 'The refresh token is invalid or has expired');
  if (record.rotated_at !== null) await reuseDetected(deps, record.account_id, record.grant_id, now);
  if (record.expires_at_s * 1000 <= now)
    throw new OAuthError('invalid_grant', 'The refresh token has expired');
  if (clientId !== undefined && record.client_id !== clientId) {
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');
  }
  if (resource !== undefined && resource !== record.resource) {
    throw new OAuthError('invalid_target', `The refresh token is for ${record.resource}`);
  }
  const grant = await activeGrant(deps, record.account_id, record.grant_id, now);
  // Credentials belong to the authorization server that issued them (MCP 2026-07-28).
  if (grant.issuer !== undefined && grant.issuer !== deps.settings.issuer) {
    throw new OAuthError(
      'invalid_grant',
      `The refresh token was issued by ${grant.issuer}: refresh it there`,
    );
  }
  // The grant, not the token, says what may be asked for: a step-up may have widened it since.
  const scopes = narrowScopes(grant.scopes, scope);
  if (awaitsStepUp(grant, now)) {
    // Step-up: a refresh cannot widen the grant, and clients (the MCP SDK) send no scope on refresh.
    // invalid_grant makes them drop their tokens and authorize again with the wider scope. Nothing is
    // revoked, unlike reuse: once the user decided (or the mark expired), it refreshes again.
    throw new OAuthError(
      'invalid_grant',
      `More scope was requested (${formatScopes(grant.step_up_scopes ?? [])}): authorize again`,
    );
  }
  const rotation = await deps.store.rotateRefreshToken(hash, now);
  if (rotation.outcome !== 'redeemed') await reuseDetected(deps, record.account_id, record.grant_id, now);
  return issueTokens(deps, grant, scopes, now);
}

function awaitsStepUp(grant: GrantRecord, now: number): boolean {
  return Boolean(grant.step_up_scopes?.length) && (grant.step_up_until_s ?? 0) * 1000 > now;
}

async function reuseDetected(
  deps: OAuthDeps,
  accountId: string,
  grantId: string,
  now: number,
): Promise<never> {
  await deps.store.revokeGrant(accountId, grantId, now);
  throw new OAuthError(
    'invalid_grant',
    'The refresh token was already used; every token of this authorization has been revoked',
  );
}

async function activeGrant(
  deps: OAuthDeps,
  accountId: string,
  grantId: string,
  now: number,
): Promise<GrantRecord> {
  const grant = await deps.store.getGrant(accountId, grantId);
  if (!grant || grant.revoked_at !== null)
    throw new OAuthError('invalid_grant', 'The authorization was revoked');
  if (grant.expires_at_s * 1000 <= now) {
    throw new OAuthError('invalid_grant', 'The authorization has expired; sign in again');
  }
  // Revoking a key ends its grants; should that have missed one (made while the key was being
  // revoked), the key's own record stops it here.
  if (!(await credentialLive(deps, accountId, grant.credential))) {
    await deps.store.revokeGrant(accountId, grantId, now);
    throw new OAuthError('invalid_grant', 'The API key this authorization was signed in with was revoked');
  }
  return grant;
}

async function issueTokens(
  deps: OAuthDeps,
  grant: GrantRecord,
  scopes: McpScope[],
  now: number,
): Promise<TokenResponse> {
  const accessToken = await signAccessToken(
    deps.signingKey,
    { issuer: issuerOfResource(deps.settings, grant.resource), resource: grant.resource },
    { accountId: grant.account_id, clientId: grant.client_id, scopes, grantId: grant.grant_id },
    now,
  );
  const refreshToken = newSecret();
  await deps.store.markGrantUsed(grant.account_id, grant.grant_id, now);
  await deps.store.putRefreshToken({
    token_hash: hashSecret(refreshToken),
    grant_id: grant.grant_id,
    account_id: grant.account_id,
    client_id: grant.client_id,
    // A narrowed refresh keeps the grant's scopes for the next refresh (RFC 6749 section 6).
    scopes: grant.scopes,
    resource: grant.resource,
    created_at: now,
    expires_at_s: Math.min(Math.floor(now / 1000) + lifetimes.refreshTokenIdle, grant.expires_at_s),
    rotated_at: null,
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: lifetimes.accessToken,
    refresh_token: refreshToken,
    scope: formatScopes(scopes),
  };
}

/**
 * POST /oauth/revoke (RFC 7009). A refresh token revokes its grant: the token, its whole family and
 * the access tokens issued from it (the MCP verifier checks the grant). An access token of ours is
 * accepted too and revokes its grant the same way, since a stateless JWT cannot be revoked alone.
 * Unknown or invalid tokens answer 200 as well (section 2.2); a token of another client is left alone.
 */
export async function revokeToken(deps: OAuthDeps, form: URLSearchParams): Promise<void> {
  const token = required(form, 'token');
  const clientId = optional(form, 'client_id');
  optional(form, 'token_type_hint');
  const now = deps.now();
  if (token.startsWith(API_KEY_PREFIX)) return;
  const record = await deps.store.getRefreshToken(hashSecret(token));
  if (record) {
    if (clientId === undefined || clientId === record.client_id) {
      await endGrant(deps, record.account_id, record.grant_id, now);
    }
    return;
  }
  const claims = await ourAccessTokenClaims(deps, token);
  if (claims && (clientId === undefined || clientId === claims.clientId)) {
    await endGrant(deps, claims.accountId, claims.grantId, now);
  }
}

/**
 * Revokes the grant. The web app's sign-out revokes its own: that signs the browser out too (its
 * sign-in session and every tab's grant through it), as a person pressing "Sign out" expects.
 */
async function endGrant(deps: OAuthDeps, accountId: string, grantId: string, now: number): Promise<void> {
  await deps.store.revokeGrant(accountId, grantId, now);
  const grant = await deps.store.getGrant(accountId, grantId);
  if (grant?.client_id === WEB_APP_CLIENT_ID && grant.sign_in_id) {
    await endSignInAndItsGrants(deps.store, accountId, grant.sign_in_id, now);
  }
}

/** The claims of an access token we signed (expired ones included), or null. */
async function ourAccessTokenClaims(
  deps: OAuthDeps,
  token: string,
): Promise<{ accountId: string; clientId: string; grantId: string } | null> {
  if (!token.includes('.') || token.length > 8192) return null;
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [deps.signingKey.publicJwk] }), {
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYP,
      issuer: deps.settings.sites.map((site) => site.issuer),
      // Revoking an expired token is harmless and makes sure its grant ends.
      currentDate: new Date(0),
    });
    const { sub, client_id: clientId, grant_id: grantId } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || typeof clientId !== 'string' || typeof grantId !== 'string') return null;
    return { accountId: sub, clientId, grantId };
  } catch {
    return null;
  }
}

function required(form: URLSearchParams, name: string): string {
  const value = optional(form, name);
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

function optional(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} must not be repeated`);
  return values[0];
}

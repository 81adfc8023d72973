import type { McpScope } from '../domain/scopes.ts';
import { getOAuthStore } from '../oauth/services.ts';
import { lifetimes } from '../oauth/settings.ts';
import { getAccessTokenVerifier } from '../oauth/verifier.ts';
import type { AccessGrant, AccessTokenVerifier } from '../ports/access-tokens.ts';

/**
 * The deployment's access-token verifier (src/oauth/verifier.ts), resolved on the first verification:
 * the MCP handler can be created, and answer 401, 403 and 405, before the signing key is read.
 */
export function oauthAccessTokenVerifier(): AccessTokenVerifier {
  return { verify: (token, resource) => getAccessTokenVerifier().verify(token, resource) };
}

/**
 * Notes a step-up on the token's grant in the OAuth store: its next refresh answers invalid_grant, so
 * the client authorizes again. Not when the grant already holds the scopes (the token is older than a
 * step-up the user approved): a refresh gives them; nor for scopes the user just declined on it.
 */
export async function recordOAuthStepUp(grant: AccessGrant, scopes: McpScope[]): Promise<void> {
  const store = getOAuthStore();
  const record = await store.getGrant(grant.accountId, grant.grantId);
  if (!record) return;
  const nowS = Math.floor(Date.now() / 1000);
  const declined = (record.step_up_declined_until_s ?? 0) > nowS ? (record.step_up_declined ?? []) : [];
  const lacking = scopes.filter((scope) => !record.scopes.includes(scope) && !declined.includes(scope));
  if (lacking.length > 0) {
    await store.recordStepUp(grant.accountId, grant.grantId, lacking, nowS + lifetimes.stepUpMark);
  }
}

import { getOAuthStore } from '../oauth/services.ts';
import { getAccessTokenVerifier } from '../oauth/verifier.ts';
import type { McpScope } from '../oauth-scopes.ts';
import type { AccessGrant, AccessTokenVerifier } from '../ports/access-tokens.ts';

/**
 * The deployment's access-token verifier (src/oauth/verifier.ts), resolved on the first verification:
 * the MCP handler can be created, and answer 401, 403 and 405, before the signing key is read.
 */
export function oauthAccessTokenVerifier(): AccessTokenVerifier {
  return { verify: (token, resource) => getAccessTokenVerifier().verify(token, resource) };
}

/** Notes a step-up on the token's grant in the OAuth store: its next refresh answers invalid_grant. */
export function recordOAuthStepUp(grant: AccessGrant, scopes: McpScope[]): Promise<void> {
  return getOAuthStore().recordStepUp(grant.accountId, grant.grantId, scopes);
}

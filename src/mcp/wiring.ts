import { getAccessTokenVerifier } from '../oauth/verifier.ts';
import type { AccessTokenVerifier } from '../ports/access-tokens.ts';

/**
 * The deployment's access-token verifier (src/oauth/verifier.ts), resolved on the first verification:
 * the MCP handler can be created, and answer 401, 403 and 405, before the signing key is read.
 */
export function oauthAccessTokenVerifier(): AccessTokenVerifier {
  return { verify: (token) => getAccessTokenVerifier().verify(token) };
}

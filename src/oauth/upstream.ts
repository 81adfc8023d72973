import { authenticate, hashApiKey } from '../domain/accounts.ts';
import { UnauthorizedError } from '../domain/errors.ts';
import type { McpScope } from '../domain/scopes.ts';
import type { AccountStore } from '../ports/account-store.ts';

/**
 * How the user signs in before consenting (the pluggable upstream identity):
 *
 * - `api-key` (local runtime): the user pastes an API key on our sign-in page; it is checked with the
 *   REST API's own key check and neither stored nor logged.
 * - `redirect` (AWS: Cognito managed login; any OpenID provider): the browser goes to the provider and
 *   comes back to /oauth/callback, where the provider's identity is mapped to an account.
 */
export type UpstreamIdentity = ApiKeySignIn | RedirectSignIn;

export interface ApiKeySignIn {
  kind: 'api-key';
  /**
   * The account the key belongs to and the scopes the key holds, or null when the key is not valid
   * (malformed, unknown, revoked). The scopes bound what the consent page may give: a sign-in must not
   * turn a narrow key into a wider grant (docs/api-decisions.md, "API keys carry scopes").
   */
  signIn(apiKey: string): Promise<KeySignIn | null>;
}

export interface KeySignIn {
  accountId: string;
  scopes: McpScope[];
  /** The key that signed in, recorded on what the sign-in makes: revoking the key ends them. */
  keyId: string;
  keyHash: string;
}

export interface RedirectSignIn {
  kind: 'redirect';
  /**
   * Where to send the browser. `state` comes back at the callback; `pending` (PKCE verifier, nonce)
   * is kept with the authorization request until then.
   */
  begin(state: string): Promise<{ url: string; pending: Record<string, string> }>;
  /** The account of the user who signed in, from the provider's redirect to our callback. */
  finish(callbackUrl: URL, state: string, pending: Record<string, string>): Promise<string>;
}

/** The sign-in at the provider did not complete. The message is for logs; users see a generic page. */
export class UpstreamSignInError extends Error {
  override readonly name = 'UpstreamSignInError';
}

export function apiKeySignIn(accounts: AccountStore): ApiKeySignIn {
  return {
    kind: 'api-key',
    async signIn(apiKey) {
      try {
        const caller = await authenticate(accounts, `Bearer ${apiKey.trim()}`);
        // authenticate() always names the key for a key credential.
        if (!caller.api_key) return null;
        return {
          accountId: caller.account.account_id,
          scopes: caller.api_key.scopes,
          keyId: caller.api_key.key_id,
          keyHash: hashApiKey(apiKey.trim()),
        };
      } catch (error) {
        if (error instanceof UnauthorizedError) return null;
        throw error;
      }
    },
  };
}

import type { AccountStore } from '../ports/account-store.ts';
import type { ClientDirectory } from './clients.ts';
import type { OAuthSettings } from './settings.ts';
import type { SigningKey } from './signing-key.ts';
import type { OAuthStore } from './store.ts';
import type { UpstreamIdentity } from './upstream.ts';

/** What the authorization server's flows use; src/oauth/services.ts wires them from configuration. */
export interface OAuthDeps {
  settings: OAuthSettings;
  store: OAuthStore;
  accounts: AccountStore;
  clients: ClientDirectory;
  signingKey: SigningKey;
  upstream: UpstreamIdentity;
  now: () => number;
}

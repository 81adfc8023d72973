import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { countAwsCalls } from '../adapters/aws-call-count.ts';
import { configuredAwsClientConfig } from '../adapters/aws-client-config.ts';
import { DynamoAccountStore } from '../adapters/dynamodb/account-store.ts';
import { createDocumentClient } from '../adapters/dynamodb/client.ts';
import { DynamoOAuthStore } from '../adapters/dynamodb/oauth-store.ts';
import { type Config, loadConfig } from '../config.ts';
import { traced } from '../observability.ts';
import { ClientMetadataFetcher } from './client-metadata-document.ts';
import { ClientDirectory } from './clients.ts';
import type { OAuthDeps } from './deps.ts';
import { webAppClient } from './first-party.ts';
import { OidcSignIn } from './oidc-upstream.ts';
import { oauthSettings } from './settings.ts';
import { signingKeyFrom } from './signing-key.ts';
import type { OAuthStore } from './store.ts';
import { apiKeySignIn, type UpstreamIdentity } from './upstream.ts';

let db: DynamoDBDocumentClient | undefined;
let store: OAuthStore | undefined;
let deps: Promise<OAuthDeps> | undefined;

function documentClient(config: Config): DynamoDBDocumentClient {
  if (!db) {
    db = traced(createDocumentClient(configuredAwsClientConfig(config, config.NOTES_DYNAMODB_ENDPOINT)));
    countAwsCalls(db.middlewareStack, 'dynamodb');
  }
  return db;
}

/** The OAuth records on the table (also what the MCP verifier reads to check a grant). */
export function getOAuthStore(): OAuthStore {
  if (!store) {
    const config = loadConfig();
    store = new DynamoOAuthStore(documentClient(config), config.NOTES_TABLE_NAME);
  }
  return store;
}

/**
 * The authorization server's dependencies, wired once per process from the environment (a Lambda
 * container reuses them; so do the Client ID Metadata Document cache and the upstream's discovery).
 */
export function getOAuthDeps(): Promise<OAuthDeps> {
  deps ??= createOAuthDeps(loadConfig()).catch((error: unknown) => {
    deps = undefined;
    throw error;
  });
  return deps;
}

export async function createOAuthDeps(config: Config): Promise<OAuthDeps> {
  const settings = oauthSettings(config);
  const oauthStore = getOAuthStore();
  const accounts = new DynamoAccountStore(documentClient(config), config.NOTES_TABLE_NAME);
  const now = Date.now;
  const upstream: UpstreamIdentity =
    settings.upstream.kind === 'local'
      ? apiKeySignIn(accounts)
      : new OidcSignIn({
          issuer: settings.upstream.issuer,
          clientId: settings.upstream.clientId,
          clientSecret: settings.upstream.clientSecret,
          callbackUrl: `${settings.issuer}/oauth/callback`,
          store: oauthStore,
          accounts,
          now,
        });
  return {
    settings,
    store: oauthStore,
    accounts,
    clients: new ClientDirectory(oauthStore, new ClientMetadataFetcher(), [
      webAppClient(
        settings.sites.map((site) => site.issuer),
        config.NOTES_WEB_APP_URL,
      ),
    ]),
    signingKey: await signingKeyFrom(settings.signingKey),
    upstream,
    now,
  };
}

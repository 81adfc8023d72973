import { randomUUID } from 'node:crypto';
import { type ApplicationType, checkApplicationType } from './application-type.ts';
import {
  type ClientMetadataFetcher,
  cleanName,
  isMetadataDocumentClientId,
} from './client-metadata-document.ts';
import { OAuthError } from './errors.ts';
import { checkRedirectUri, isRegisteredRedirectUri } from './redirect-uris.ts';
import { admitRegistration } from './registration-limit.ts';
import { formatScopes, parseScopes } from './scopes.ts';
import type { OAuthClient, OAuthStore } from './store.ts';

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 10;

/**
 * Client authentication methods of RFC 7591 section 2 and OpenID Connect Registration. A client
 * asking for one of them is registered as public (`none`) and told so; an unknown value is refused.
 */
const KNOWN_AUTH_METHODS = new Set([
  'none',
  'client_secret_post',
  'client_secret_basic',
  'client_secret_jwt',
  'private_key_jwt',
  'tls_client_auth',
  'self_signed_tls_client_auth',
]);

/** The RFC 7591 registration response (public clients: no secret). */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope: string;
  application_type: ApplicationType;
}

/**
 * Dynamic client registration (RFC 7591) for public clients only. The server may replace requested
 * metadata with what it actually registers (section 3.2.1), and does so rather than refuse clients
 * that work as public ones:
 * - `token_endpoint_auth_method`: always `none`, whatever known method was asked for. Hosted
 *   connectors (Claude's) ask for `client_secret_post`; no secret is issued, PKCE protects the code.
 * - `grant_types`: the supported ones asked for (`authorization_code`, required, and
 *   `refresh_token`); others (VS Code asks for the device code grant) are left out.
 * - `scope`: the scopes asked for, or the default (`notes:read notes:process`). It is the scope an
 *   authorization request naming none gets, not a limit: a later request may ask for more (step-up),
 *   and the user approves every scope on the consent page.
 * - `application_type`: `web` or `native`, and when declared the redirect URIs must suit it
 *   (src/oauth/application-type.ts); when not, the type the redirect URIs show.
 * Every redirect URI must pass the redirect policy; the first one that does not is named. Other
 * metadata (client_uri, logo_uri, contacts, ...) is not kept, so it is not echoed either. The client
 * is bound to `issuer`, the authorization server it registered with: its client_id is unknown at any
 * other (locally, `localhost` and `127.0.0.1` are two), so a client that moves registers again.
 * Registrations per source address are limited (src/oauth/registration-limit.ts).
 */
export async function registerClient(
  store: OAuthStore,
  metadata: unknown,
  now: number,
  issuer: string,
  sourceIp?: string,
): Promise<RegisteredClient> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError('invalid_client_metadata', 'The registration request must be a JSON object');
  }
  const m = metadata as Record<string, unknown>;
  const redirectUris = checkedRedirectUris(m.redirect_uris);
  const method = m.token_endpoint_auth_method;
  if (method !== undefined && (typeof method !== 'string' || !KNOWN_AUTH_METHODS.has(method))) {
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method ${JSON.stringify(String(method).slice(0, 64))} is unknown; clients are registered as public ("none") and use PKCE`,
    );
  }
  const grantTypes = supportedGrantTypes(m.grant_types);
  const responseTypes = m.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types may only contain "code"');
  }
  if (m.client_name !== undefined && typeof m.client_name !== 'string') {
    throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
  }
  const scope = registeredScope(m.scope);
  const applicationType = checkApplicationType(m.application_type, redirectUris);
  if (!applicationType.ok) {
    throw new OAuthError(
      applicationType.field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      applicationType.reason,
    );
  }
  const client: OAuthClient = {
    client_id: randomUUID(),
    client_name: typeof m.client_name === 'string' ? cleanName(m.client_name) : null,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    scope,
    source: 'registration',
    application_type: applicationType.type,
    issuer,
    created_at: now,
  };
  await admitRegistration(store, sourceIp, now);
  await store.putClient(client);
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(now / 1000),
    ...(client.client_name ? { client_name: client.client_name } : {}),
    redirect_uris: client.redirect_uris,
    grant_types: client.grant_types,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope,
    application_type: applicationType.type,
  };
}

/** Whether `client` may be sent back to `redirectUri`: a first-party client exactly, others by RFC 8252 too. */
export function acceptsRedirectUri(client: OAuthClient, redirectUri: string): boolean {
  return client.source === 'first_party'
    ? client.redirect_uris.includes(redirectUri)
    : isRegisteredRedirectUri(client.redirect_uris, redirectUri);
}

function checkedRedirectUris(uris: unknown): string[] {
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris are accepted`);
  }
  uris.forEach((uri, index) => {
    const check = checkRedirectUri(uri);
    if (!check.ok) {
      const shown = typeof uri === 'string' ? ` (${JSON.stringify(uri.slice(0, 200))})` : '';
      throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}]${shown} ${check.reason}`);
    }
  });
  return uris as string[];
}

function supportedGrantTypes(asked: unknown): string[] {
  const grantTypes = asked ?? GRANT_TYPES;
  if (
    !Array.isArray(grantTypes) ||
    grantTypes.some((type) => typeof type !== 'string') ||
    !grantTypes.includes('authorization_code')
  ) {
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types must include authorization_code (refresh_token is also supported)',
    );
  }
  return GRANT_TYPES.filter((type) => grantTypes.includes(type));
}

function registeredScope(asked: unknown): string {
  if (asked !== undefined && typeof asked !== 'string') {
    throw new OAuthError('invalid_client_metadata', 'scope must be a string');
  }
  try {
    return formatScopes(parseScopes(asked));
  } catch (error) {
    throw new OAuthError(
      'invalid_client_metadata',
      error instanceof OAuthError ? error.description : 'bad scope',
    );
  }
}

/**
 * Finds a client by its ID: one built into the server (the web app), a registered one, or one
 * described by a Client ID Metadata Document.
 */
export class ClientDirectory {
  constructor(
    private readonly store: OAuthStore,
    private readonly documents: ClientMetadataFetcher,
    private readonly builtIn: readonly OAuthClient[] = [],
  ) {}

  /**
   * The client as known to the authorization server `issuer`, or null when the ID is unknown there (a
   * client registered with another issuer included); a bad metadata document throws `invalid_client`.
   * Metadata document clients are portable across issuers (MCP 2026-07-28): the URL is the identity.
   */
  async find(clientId: string, issuer: string): Promise<OAuthClient | null> {
    if (clientId.length === 0 || clientId.length > 2000) return null;
    const own = this.builtIn.find((client) => client.client_id === clientId);
    if (own) return own;
    if (isMetadataDocumentClientId(clientId)) return this.documents.resolve(clientId);
    const registered = await this.store.getClient(clientId);
    return registered && (registered.issuer === undefined || registered.issuer === issuer)
      ? registered
      : null;
  }
}

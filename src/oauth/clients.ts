import { randomUUID } from 'node:crypto';
import {
  type ClientMetadataFetcher,
  cleanName,
  isMetadataDocumentClientId,
} from './client-metadata-document.ts';
import { OAuthError } from './errors.ts';
import { checkRedirectUri } from './redirect-uris.ts';
import { formatScopes, parseScopes, SUPPORTED_SCOPES } from './scopes.ts';
import type { OAuthClient, OAuthStore } from './store.ts';

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 10;

/** The RFC 7591 registration response (public clients: no secret). */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope?: string;
}

/**
 * Dynamic client registration (RFC 7591) for public clients only: `token_endpoint_auth_method` must
 * be `none` (or left out), every redirect URI must pass the redirect policy. Other metadata
 * (client_uri, logo_uri, contacts, ...) is not kept, so it is not echoed either (section 3.2.1).
 */
export async function registerClient(
  store: OAuthStore,
  metadata: unknown,
  now: number,
): Promise<RegisteredClient> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError('invalid_client_metadata', 'The registration request must be a JSON object');
  }
  const m = metadata as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris are accepted`);
  }
  uris.forEach((uri, index) => {
    const check = checkRedirectUri(uri);
    if (!check.ok) throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] ${check.reason}`);
  });
  const method = m.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'Only public clients can register: token_endpoint_auth_method must be "none" (use PKCE instead of a secret)',
    );
  }
  const grantTypes = m.grant_types ?? GRANT_TYPES;
  if (
    !Array.isArray(grantTypes) ||
    !grantTypes.includes('authorization_code') ||
    grantTypes.some((type) => !GRANT_TYPES.includes(type))
  ) {
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types must include authorization_code and may include refresh_token, nothing else',
    );
  }
  const responseTypes = m.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types may only contain "code"');
  }
  if (m.client_name !== undefined && typeof m.client_name !== 'string') {
    throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
  }
  // A requested scope is checked but does not limit the client: MCP clients register the scope of
  // their first authorization (the SDK's scope selection), and a limit would make every later
  // step-up fail with invalid_scope. The server replaces it (section 2 allows that) with every
  // supported scope, and says so in the response.
  let scope: string | null = null;
  if (m.scope !== undefined) {
    if (typeof m.scope !== 'string')
      throw new OAuthError('invalid_client_metadata', 'scope must be a string');
    try {
      parseScopes(m.scope);
    } catch (error) {
      throw new OAuthError(
        'invalid_client_metadata',
        error instanceof OAuthError ? error.description : 'bad scope',
      );
    }
    scope = formatScopes(SUPPORTED_SCOPES);
  }
  const client: OAuthClient = {
    client_id: randomUUID(),
    client_name: typeof m.client_name === 'string' ? cleanName(m.client_name) : null,
    redirect_uris: uris as string[],
    grant_types: [...new Set(grantTypes as string[])],
    scope: null,
    source: 'registration',
    created_at: now,
  };
  await store.putClient(client);
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(now / 1000),
    ...(client.client_name ? { client_name: client.client_name } : {}),
    redirect_uris: client.redirect_uris,
    grant_types: client.grant_types,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(scope ? { scope } : {}),
  };
}

/** Finds a client by its ID: a registered one, or one described by a Client ID Metadata Document. */
export class ClientDirectory {
  constructor(
    private readonly store: OAuthStore,
    private readonly documents: ClientMetadataFetcher,
  ) {}

  /** The client, or null when the ID is unknown; a bad metadata document throws `invalid_client`. */
  async find(clientId: string): Promise<OAuthClient | null> {
    if (clientId.length === 0 || clientId.length > 2000) return null;
    if (isMetadataDocumentClientId(clientId)) return this.documents.resolve(clientId);
    return this.store.getClient(clientId);
  }
}

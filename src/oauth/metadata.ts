import { SUPPORTED_SCOPES } from './scopes.ts';
import type { OAuthSettings } from './settings.ts';
import type { SigningKey } from './signing-key.ts';

/** The protected resources: the MCP endpoint and the REST API, named by their path. */
export type ProtectedResource = 'mcp' | 'v1';

/** A resource's protected resource metadata URL (RFC 9728 path form), for `WWW-Authenticate`. */
export function protectedResourceMetadataUrl(publicUrl: string, path: ProtectedResource = 'mcp'): string {
  return `${publicUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/${path}`;
}

/** RFC 9728: the MCP server's at /.well-known/oauth-protected-resource and .../mcp, the REST API's at .../v1. */
export function protectedResourceMetadata(
  settings: OAuthSettings,
  path: ProtectedResource = 'mcp',
): Record<string, unknown> {
  return {
    resource: path === 'mcp' ? settings.resource : settings.restResource,
    authorization_servers: [settings.issuer],
    scopes_supported: SUPPORTED_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: path === 'mcp' ? 'Notes MCP server' : 'Notes REST API',
  };
}

/** RFC 8414: served at /.well-known/oauth-authorization-server. */
export function authorizationServerMetadata(settings: OAuthSettings): Record<string, unknown> {
  const base = settings.issuer;
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    jwks_uri: `${base}/oauth/jwks`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: SUPPORTED_SCOPES,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

export function jwks(key: SigningKey): { keys: unknown[] } {
  return { keys: [key.publicJwk] };
}

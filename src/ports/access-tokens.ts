import type { McpScope } from '../domain/scopes.ts';

/** Who an MCP access token speaks for, and what it allows. */
export interface AccessGrant {
  accountId: string;
  clientId: string;
  scopes: McpScope[];
  /** The consent (OAuth grant) the token was issued from: its `grant_id` claim. */
  grantId: string;
}

/**
 * Verifies the OAuth access tokens of the MCP server: signature, issuer, audience (the MCP resource
 * URL), expiry, token type. Never accepts `svc_sk_` API keys or ID tokens.
 */
export interface AccessTokenVerifier {
  /**
   * The grant, or throws `InvalidAccessTokenError` (the message says why; never the token).
   * `resource`: the MCP resource URL the request reached, the only audience accepted (default: the
   * deployment's primary one).
   */
  verify(token: string, resource?: string): Promise<AccessGrant>;
}

export class InvalidAccessTokenError extends Error {
  override readonly name = 'InvalidAccessTokenError';
}

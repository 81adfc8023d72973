/**
 * OAuth errors (RFC 6749 section 5.2, RFC 7591 section 3.2.2, RFC 7009, RFC 8707). OAuth clients
 * expect `{ error, error_description }` bodies, not the REST API's `{ detail }`. Descriptions are
 * written for the client developer and never contain a code, token, key or verifier.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : error === 'server_error' ? 500 : 400,
    /** Response headers that go with it (`Retry-After` on a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${error}: ${description}`);
  }

  toBody(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/**
 * An authorization request that cannot be answered by redirecting to the client (unknown client,
 * missing or unregistered redirect URI, expired sign-in): the user sees an error page instead, so an
 * attacker cannot use the server as an open redirector (RFC 6749 section 4.1.2.1).
 */
export class AuthorizationPageError extends Error {
  override readonly name = 'AuthorizationPageError';

  constructor(
    readonly title: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

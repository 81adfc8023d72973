/**
 * CORS headers of the endpoints browser-based MCP clients call: the OAuth endpoints (public data and
 * public clients: any origin) and /mcp (the origins its policy allows, src/mcp/origin-policy.ts).
 * No credentials mode anywhere: tokens travel in the Authorization header, never in cookies.
 */

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours, Firefox at 24). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * Request headers a browser client may send. The MCP SDK adds `MCP-Protocol-Version` to its metadata
 * discovery; `Authorization` covers clients that authenticate at the token endpoint anyway.
 */
export const OAUTH_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Mcp-Protocol-Version'] as const;

/** On every response of a public OAuth endpoint: readable from any origin. */
export const ANY_ORIGIN = { 'Access-Control-Allow-Origin': '*' } as const;

export interface CorsRules {
  methods: readonly string[];
  allowHeaders: readonly string[];
}

/** The headers that answer a preflight for `allowOrigin` (`*` or one origin). */
export function preflightHeaders(allowOrigin: string, rules: CorsRules): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': allowOrigin,
    'Access-Control-Allow-Methods': rules.methods.join(', '),
    'Access-Control-Allow-Headers': rules.allowHeaders.join(', '),
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/**
 * REST for the web app on another origin (NOTES_WEB_APP_URL): exactly that origin, the headers the
 * app sends (the bearer token, JSON, the preconditions) and reads (ETag for If-Match, Retry-After).
 */
export const REST_CORS: CorsRules = {
  methods: ['GET', 'POST', 'PATCH', 'DELETE'],
  allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match'],
};
const REST_EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'WWW-Authenticate'].join(', ');

/** The CORS headers of a REST response to `origin`: none unless it is the web app's. */
export function webAppCorsHeaders(
  origin: string | undefined,
  webAppOrigin: string | undefined,
): Record<string, string> {
  if (!webAppOrigin) return {};
  // The answer depends on Origin whatever it is, so caches must key on it.
  if (origin !== webAppOrigin) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': webAppOrigin,
    'Access-Control-Expose-Headers': REST_EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

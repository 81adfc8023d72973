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

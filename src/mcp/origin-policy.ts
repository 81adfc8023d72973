import { preflightHeaders } from '../http/cors.ts';

/**
 * Which browser origins may call /mcp (docs/mcp.md, "`localhost`, browser-based clients and the origin policy"):
 * - no `Origin` header (desktop clients, CLIs, servers): served, no CORS headers;
 * - the service's own origins and those the operator lists (NOTES_MCP_ALLOWED_ORIGINS): served, with
 *   CORS headers on the preflight and on every response, 401 and 403 included;
 * - any other origin: 403 before anything else, the token included (DNS rebinding protection, MCP
 *   specification "Security Warning"). A page of a foreign origin learns nothing, not even where to
 *   authorize.
 */
export type OriginVerdict =
  | { kind: 'no-origin' }
  | { kind: 'allowed'; origin: string }
  | { kind: 'refused'; origin: string };

/**
 * Browsers may read the 401's challenge (to discover OAuth) and a session ID, should one be set.
 */
const EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate'];

/**
 * GET and DELETE are listed although they answer 405: a browser then reads the 405 (the SDK client
 * handles it) instead of failing the request as a CORS error. Mcp-Method and Mcp-Name: a
 * 2026-07-28 client sends them on every request.
 */
const MCP_CORS_RULES = {
  methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'Authorization',
    'Content-Type',
    'Mcp-Protocol-Version',
    'Mcp-Method',
    'Mcp-Name',
    'Mcp-Session-Id',
    'Last-Event-ID',
  ],
};

export function mcpOriginPolicy(allowedOrigins: readonly string[]): (origin: string | null) => OriginVerdict {
  const allowed = new Set(allowedOrigins.map(normalizeOrigin));
  return (origin) => {
    if (origin === null) return { kind: 'no-origin' };
    return allowed.has(normalizeOrigin(origin)) ? { kind: 'allowed', origin } : { kind: 'refused', origin };
  };
}

/** On every response: caches must not hand one origin's answer to another. */
export function corsResponseHeaders(verdict: OriginVerdict): Record<string, string> {
  if (verdict.kind !== 'allowed') return { Vary: 'Origin' };
  return {
    Vary: 'Origin',
    'Access-Control-Allow-Origin': verdict.origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
  };
}

/** The answer to an allowed origin's preflight. */
export function corsPreflightHeaders(verdict: OriginVerdict & { kind: 'allowed' }): Record<string, string> {
  return { Vary: 'Origin', ...preflightHeaders(verdict.origin, MCP_CORS_RULES) };
}

/** `scheme://host[:port]` as browsers send it; anything unparsable compares as written. */
export function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.trim().toLowerCase();
  }
}

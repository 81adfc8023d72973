/**
 * The redirect URI policy (OAuth 2.1 section 2.3.1, RFC 8252 for native apps, RFC 9700 section 4.1):
 *
 * - `https` URIs: any host, no user info; matched exactly (string equality) at /oauth/authorize.
 * - loopback `http` URIs: host exactly `127.0.0.1`, `[::1]` or `localhost`, any port; matched ignoring
 *   the port (RFC 8252 section 7.3: native apps bind an ephemeral port per request). Every other
 *   `http` URI is refused.
 * - private-use schemes (RFC 8252 section 7.1) of desktop clients, only in two forms: the reverse-DNS
 *   form of RFC 8252 (`com.example.app:/oauth/callback`), or the scheme of a known MCP desktop client
 *   (KNOWN_CLIENT_SCHEMES below) naming a host (`cursor://anysphere.cursor-mcp/oauth/callback`).
 *   Any other scheme is refused: an arbitrary scheme launches whatever app claims it (`ms-settings:`,
 *   `steam:`, `x-safari-https:`), which is not a callback. Matched exactly. Any app on the machine can
 *   claim a scheme; PKCE (required for every client here) is what keeps an intercepted code useless
 *   (RFC 8252 section 8.1), as for loopback redirects. Errors found before the user approved are not
 *   redirected to these at all (see `redirectsAutomatically`).
 * - never a fragment, never user information, never script, local-content, web-socket or
 *   system-handler schemes (`javascript:`, `data:`, `file:`, `vbscript:`, `blob:`, `ms-msdt:`, ...),
 *   at most 2,000 characters, no whitespace or control characters.
 */
export type RedirectUriKind = 'https' | 'loopback' | 'private-use';

export type RedirectUriCheck = { ok: true; kind: RedirectUriKind } | { ok: false; reason: string };

export const MAX_REDIRECT_URI_LENGTH = 2000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Never acceptable, whatever their form: they run script or read local content in the browser. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript',
  'data',
  'file',
  'vbscript',
  'blob',
  'about',
  'filesystem',
  'view-source',
  'ws',
  'wss',
  'ftp',
  'jar',
  'mhtml',
  'intent',
  'ms-msdt',
  'search-ms',
  'mailto',
  'tel',
  'sms',
]);

/**
 * URL schemes of MCP desktop clients that register a callback with a host, and where each was found.
 * Reverse-DNS schemes need no entry: they name their owner's domain.
 */
const KNOWN_CLIENT_SCHEMES: ReadonlyMap<string, string> = new Map([
  ['cursor', 'Cursor: test/fixtures/mcp-clients/cursor.json, https://cursor.com/docs/mcp'],
  ['vscode', 'VS Code: urlProtocol in product.json, https://github.com/microsoft/vscode'],
  ['vscode-insiders', 'VS Code Insiders: urlProtocol of the Insiders build (same source)'],
  ['windsurf', 'Windsurf: https://github.com/trypostit/trypost/pull/336'],
  ['claude', 'Claude Desktop: https://github.com/trypostit/trypost/pull/336'],
]);

const REVERSE_DNS_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/;

export function checkRedirectUri(uri: unknown): RedirectUriCheck {
  if (typeof uri !== 'string' || uri.length === 0) return refuse('must be a non-empty string');
  if (uri.length > MAX_REDIRECT_URI_LENGTH)
    return refuse(`must be at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  if (
    /\s/.test(uri) ||
    Array.from(uri).some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)
  ) {
    return refuse('must not contain whitespace or control characters');
  }
  if (uri.includes('#')) return refuse('must not contain a fragment');
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri);
  const scheme = schemeMatch?.[1]?.toLowerCase();
  if (!scheme) return refuse('must be an absolute URI');
  if (FORBIDDEN_SCHEMES.has(scheme)) return refuse(`must not use the ${scheme}: scheme`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refuse('is not a valid URI');
  }
  if (url.username || url.password) return refuse('must not contain user information');
  if (scheme === 'https') {
    if (!url.hostname) return refuse('must name a host');
    return { ok: true, kind: 'https' };
  }
  if (scheme === 'http') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) {
      return refuse('must use https, unless it is a loopback address (127.0.0.1, [::1] or localhost)');
    }
    return { ok: true, kind: 'loopback' };
  }
  // http and https were answered above: `https-app:`, `http.example:` only read like them.
  if (scheme.startsWith('http')) return refuse(`must not use ${scheme}:, a look-alike of http(s)`);
  if (REVERSE_DNS_SCHEME.test(scheme)) return { ok: true, kind: 'private-use' };
  if (!KNOWN_CLIENT_SCHEMES.has(scheme)) {
    return refuse(
      `uses the scheme ${scheme}:, which is not a known MCP client's: use https, a loopback http address or a reverse-DNS scheme (e.g. com.example.app:/callback)`,
    );
  }
  if (!url.hostname) return refuse(`uses the scheme ${scheme}: without a host`);
  return { ok: true, kind: 'private-use' };
}

/**
 * Whether the redirect URI of an authorization request matches a registered one: exactly, or for
 * loopback http URIs, exactly except for the port.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = loopback(registered);
  const b = loopback(requested);
  if (!a || !b) return false;
  return (
    a.protocol === b.protocol &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search
  );
}

/**
 * Whether an error found before the user signed in and approved may be redirected to this URI without
 * asking (RFC 9700 section 4.11.2): only to https and loopback URIs, which open a page in the browser
 * or reach the client's own listener. A private-use scheme launches an app, so those errors are shown
 * as a page instead.
 */
export function redirectsAutomatically(uri: string): boolean {
  const check = checkRedirectUri(uri);
  return check.ok && check.kind !== 'private-use';
}

export function isRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  return checkRedirectUri(requested).ok && registered.some((uri) => redirectUriMatches(uri, requested));
}

function loopback(uri: string): URL | null {
  const check = checkRedirectUri(uri);
  if (!check.ok || check.kind !== 'loopback') return null;
  return new URL(uri);
}

function refuse(reason: string): RedirectUriCheck {
  return { ok: false, reason };
}

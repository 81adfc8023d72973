/**
 * The redirect URI policy (OAuth 2.1 section 2.3.1, RFC 8252 for native apps, RFC 9700 section 4.1):
 *
 * - `https` URIs: any host, no user info; matched exactly (string equality) at /oauth/authorize.
 * - loopback `http` URIs: host exactly `127.0.0.1`, `[::1]` or `localhost`, any port; matched ignoring
 *   the port (RFC 8252 section 7.3: native apps bind an ephemeral port per request). Every other
 *   `http` URI is refused.
 * - private-use schemes (RFC 8252 section 7.1) only in reverse-DNS form, e.g.
 *   `com.example.app:/oauth/callback`: the scheme must contain a dot, so `myapp:` and `cursor:` are
 *   refused. Matched exactly.
 * - never a fragment, never script or local-content schemes (`javascript:`, `data:`, `file:`,
 *   `vbscript:`, `blob:`, ...), at most 2,000 characters, no whitespace or control characters.
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
  if (scheme === 'https') {
    if (!url.hostname) return refuse('must name a host');
    if (url.username || url.password) return refuse('must not contain user information');
    return { ok: true, kind: 'https' };
  }
  if (scheme === 'http') {
    if (url.username || url.password) return refuse('must not contain user information');
    if (!LOOPBACK_HOSTS.has(url.hostname)) {
      return refuse('must use https, unless it is a loopback address (127.0.0.1, [::1] or localhost)');
    }
    return { ok: true, kind: 'loopback' };
  }
  if (!REVERSE_DNS_SCHEME.test(scheme)) {
    return refuse(
      'must use https, a loopback http address or a private-use scheme in reverse-DNS form (e.g. com.example.app:/callback)',
    );
  }
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

import { checkRedirectUri } from './redirect-uris.ts';

/**
 * `application_type` (OpenID Connect Dynamic Client Registration 1.0 section 2; MCP 2026-07-28 asks
 * clients to send it when they register): `native` for desktop, mobile and command-line clients and
 * for web apps served from localhost, `web` for browser apps on a remote host.
 *
 * - Declared `web`: every redirect URI is https on a host that is not a loopback name or address. A
 *   web app cannot receive a loopback or app-scheme redirect; that is the conflict SEP-837 is about.
 * - Declared `native`: at least one redirect URI is a loopback http URI or a private-use scheme; https
 *   ones may be listed beside them. OIDC would allow only loopback and custom schemes, but RFC 8252
 *   section 7.2 gives native apps claimed https redirects, and the MCP SDK clients (v2, and the one
 *   bundled by mcp-remote) declare `native` for any set holding a loopback or app-scheme URI: Cursor's
 *   (`cursor://`, https and loopback) would be refused. An https-only set declared `native` is
 *   refused: nothing in it is a native redirect, so the client is a web app or mistaken.
 * - Not declared (clients written for MCP 2025-11-25 and earlier never send it): nothing more is
 *   required than the redirect URI policy, as before; this server is not an OpenID provider, so OIDC's
 *   default of `web` would only refuse the loopback redirects those clients use. The type recorded is
 *   what the redirect URIs show: `native` when any is loopback or a private-use scheme, else `web`.
 */
export type ApplicationType = 'web' | 'native';

export const APPLICATION_TYPES: readonly ApplicationType[] = ['web', 'native'];

export type ApplicationTypeCheck =
  | { ok: true; type: ApplicationType }
  | { ok: false; field: 'application_type' | 'redirect_uris'; reason: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The client's type, given redirect URIs that already passed `checkRedirectUri`. */
export function checkApplicationType(
  declared: unknown,
  redirectUris: readonly string[],
): ApplicationTypeCheck {
  if (declared === undefined) {
    return { ok: true, type: redirectUris.some((uri) => kindOf(uri) !== 'web') ? 'native' : 'web' };
  }
  if (typeof declared !== 'string' || !(APPLICATION_TYPES as readonly string[]).includes(declared)) {
    return { ok: false, field: 'application_type', reason: 'application_type must be "web" or "native"' };
  }
  const type = declared as ApplicationType;
  if (type === 'native') {
    if (redirectUris.some((uri) => kindOf(uri) === 'native')) return { ok: true, type };
    return {
      ok: false,
      field: 'redirect_uris',
      reason:
        'redirect_uris do not suit a native application: list a loopback http URI or an app\'s private-use scheme, or register as "web"',
    };
  }
  const index = redirectUris.findIndex((uri) => kindOf(uri) !== 'web');
  if (index >= 0) {
    const shown = JSON.stringify(redirectUris[index]?.slice(0, 200));
    return {
      ok: false,
      field: 'redirect_uris',
      reason: `redirect_uris[${index}] (${shown}) does not suit a web application: use https on a host that is not loopback, or register as "native"`,
    };
  }
  return { ok: true, type };
}

/** Which application type a (valid) redirect URI suits. */
function kindOf(uri: string): ApplicationType {
  const check = checkRedirectUri(uri);
  if (!check.ok || check.kind !== 'https') return 'native';
  return LOOPBACK_HOSTS.has(new URL(uri).hostname) ? 'native' : 'web';
}

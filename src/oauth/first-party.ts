import { SUPPORTED_SCOPES } from './scopes.ts';
import type { OAuthClient } from './store.ts';

/** The web app's OAuth client: built into the server, never registered, never stored. */
export const WEB_APP_CLIENT_ID = 'notes-web';

/**
 * What the web app signs in with: every scope but permanent deletion, which it asks for (in place,
 * ticked for the person) when they first delete or make a key that may (docs/api-decisions.md).
 */
export const WEB_APP_SIGN_IN_SCOPES = SUPPORTED_SCOPES.filter((scope) => scope !== 'notes:delete');

/** Where the web app receives its authorization code, on its own origin. */
export const WEB_APP_CALLBACK_PATH = '/app/callback';

/**
 * The first-party client of the web app: public (authorization code + PKCE S256, no secret), its
 * redirect URIs fixed by the server to `/app/callback` on the service's own origins (locally both
 * loopback names) and on the web app's origin when it is served elsewhere (NOTES_WEB_APP_URL, the
 * CloudFront origin on AWS). They match exactly, the port included: the loopback any-port rule of
 * native clients does not apply, so no other local listener can receive its codes.
 */
export function webAppClient(serviceOrigins: readonly string[], webAppOrigin?: string): OAuthClient {
  const origins = [...new Set([...serviceOrigins, ...(webAppOrigin ? [webAppOrigin] : [])])];
  return {
    client_id: WEB_APP_CLIENT_ID,
    client_name: 'Notes web app',
    redirect_uris: origins.map((origin) => `${origin.replace(/\/+$/, '')}${WEB_APP_CALLBACK_PATH}`),
    grant_types: ['authorization_code', 'refresh_token'],
    // A request that names no scope gets what the app signs in with; it may ask for deletion too.
    scope: WEB_APP_SIGN_IN_SCOPES.join(' '),
    source: 'first_party',
    created_at: 0,
  };
}

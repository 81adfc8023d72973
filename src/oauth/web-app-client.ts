/**
 * The web app's OAuth client: public (PKCE, no secret) and first-party, known to the authorization
 * server by this fixed ID rather than registered at run time.
 */
export const WEB_APP_CLIENT_ID = 'notes-web';

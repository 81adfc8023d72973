import type { AppConfig } from './config.ts';

/**
 * Sign-in with the service's own OAuth 2.1 server: authorization code with PKCE (S256) for a public
 * client, so no secret and no API key ever reaches the browser. The tokens live in this tab's
 * sessionStorage (gone when the tab closes); the strict Content-Security-Policy the pages are served
 * with is what keeps other scripts away from them.
 */

interface ServerMetadata {
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
}

/** The authorization server refused the grant (an OAuth error answer): the session is over. */
class GrantRefused extends Error {}

/**
 * A permission was given by signing in to another account than this tab's: the tab keeps its own
 * session (nothing switches silently), and the other account's new tokens are revoked.
 */
export class OtherAccount extends Error {
  constructor(readonly stillSignedIn = true) {
    super(
      stillSignedIn
        ? 'That sign-in was to a different account than the one this tab uses, so nothing changed: you are still signed in to your account here. To give the permission, sign in with a key of this account.'
        : 'That sign-in was to a different account than the one this tab uses, so nothing was given. Signing out there signed this browser out of your account, this tab included: sign in again to go on.',
    );
  }
}

export interface Session {
  access_token: string;
  refresh_token: string | null;
  /** Epoch ms after which the access token is refreshed before use. */
  expires_at: number;
  scope: string;
}

const SESSION_KEY = 'notes.session';
/** Where this tab keeps what a visit gathers (the Ask thread): removed at sign-out. */
export const VISIT_PREFIX = 'notes.visit.';
const PENDING_KEY = 'notes.pending-sign-in';
/**
 * Whether a tab of this browser signed in since the last sign-out (no token, only a mark): a new
 * tab then goes straight to the sign-in, which the browser's sign-in session at the authorization
 * server answers without any page (or, where none lives, its sign-in page), rather than showing the
 * app's own "Sign in" first.
 */
const BROWSER_KEY = 'notes.signed-in-on-this-browser';
/** Refresh this long before the access token expires, so a request never carries an expired one. */
const EXPIRY_MARGIN_MS = 30_000;

/** The server's WEB_APP_CALLBACK_PATH (src/oauth/first-party.ts), where the app's sign-ins return. */
export const CALLBACK_PATH = '/app/callback';

export function redirectUri(): string {
  return `${location.origin}${CALLBACK_PATH}`;
}

let serverMetadata: Promise<ServerMetadata> | null = null;

/** The authorization server's endpoints, read once per page load (a failed read is tried again). */
function metadata(config: AppConfig): Promise<ServerMetadata> {
  serverMetadata ??= fetch(`${config.issuer}/.well-known/oauth-authorization-server`).then(
    async (response) => {
      if (!response.ok) throw new Error('The sign-in service is not reachable right now');
      return (await response.json()) as ServerMetadata;
    },
  );
  serverMetadata.catch(() => {
    serverMetadata = null;
  });
  return serverMetadata;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A sign-in started here: the authorization URL, with the verifier and state it must come back with. */
export async function authorization(
  config: AppConfig,
  scopes: readonly string[],
  statePrefix = '',
): Promise<{ url: string; verifier: string; state: string }> {
  const server = await metadata(config);
  const verifier = randomToken();
  const state = `${statePrefix}${randomToken()}`;
  const url = new URL(server.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.client_id,
    redirect_uri: redirectUri(),
    scope: scopes.join(' '),
    resource: config.resource,
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), verifier, state };
}

/**
 * Sends the browser to the sign-in page; `returnTo` is the app location to come back to, `scopes`
 * what to ask for (every scope the app uses unless said).
 */
export async function beginSignIn(
  config: AppConfig,
  returnTo: string,
  scopes: readonly string[] = config.scopes,
  /** For a permission asked for in the whole tab: the account the new session must belong to. */
  account: string | null = null,
): Promise<void> {
  const { url, verifier, state } = await authorization(config, scopes);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo, account }));
  location.assign(url);
}

/** Finishes a sign-in on the callback page; answers where the user was going. */
export async function completeSignIn(config: AppConfig, params: URLSearchParams): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
    account?: string | null;
  } | null;
  sessionStorage.removeItem(PENDING_KEY);
  const error = params.get('error');
  if (error) throw new Error(params.get('error_description') ?? `Sign-in was not completed (${error})`);
  if (!pending || params.get('state') !== pending.state) {
    throw new Error('This sign-in link is stale or was not started here: sign in again');
  }
  const code = params.get('code');
  if (!code) throw new Error('The sign-in answer carried no authorization code: sign in again');
  await exchangeCode(config, code, pending.verifier, pending.account ?? null);
  return pending.returnTo;
}

/**
 * Trades an authorization code (with the verifier of its sign-in) for the session this tab keeps.
 * With `account` (asking for a permission), the new session must be that account's: otherwise the
 * tab keeps its session, the new tokens are revoked, and OtherAccount says what happened.
 */
export async function exchangeCode(
  config: AppConfig,
  code: string,
  verifier: string,
  account: string | null = null,
): Promise<void> {
  const server = await metadata(config);
  const session = await tokenRequest(server, config, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri(),
    code_verifier: verifier,
  });
  if (account !== null && sessionAccount(session) !== account) {
    await revokeTokens(server, config, session);
    // "Sign out and use another key" on the consent page signs the browser out, with this tab.
    throw new OtherAccount(await stillSignedIn(config));
  }
  const previous = currentSession();
  saveSession(session);
  markBrowserSignedIn(true);
  if (previous && sessionAccount(previous) === sessionAccount(session))
    await endReplacedSession(config, previous, session);
}

/**
 * A permission given later comes as a new session (a new grant): the one it replaces is ended, so
 * the account's session list shows no tab that is not there. Only that grant ends: revoking its
 * refresh token would sign the whole browser out. Best effort: it expires by itself anyway.
 */
async function endReplacedSession(config: AppConfig, previous: Session, next: Session): Promise<void> {
  const old = tokenClaim(previous, 'grant_id');
  if (!old || old === tokenClaim(next, 'grant_id')) return;
  await fetch(`${config.api_base_url}/v1/account/sessions/${encodeURIComponent(old)}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${next.access_token}` },
  }).catch(() => undefined);
}

/** Whether this tab's session still works: a refresh it is refused ends it here too. */
async function stillSignedIn(config: AppConfig): Promise<boolean> {
  try {
    return (await accessToken(config, true)) !== null;
  } catch {
    // Not reachable just now: nothing says it ended.
    return true;
  }
}

/**
 * The account a session belongs to: its access token's `sub` (RFC 9068). Read, not verified: the
 * API verifies every token; this only tells two of this tab's own sessions apart.
 */
export function sessionAccount(session: Session | null): string | null {
  return tokenClaim(session, 'sub');
}

/** A claim of the session's access token, read (not verified) like `sessionAccount`'s. */
function tokenClaim(session: Session | null, claim: 'sub' | 'grant_id'): string | null {
  const payload = session?.access_token.split('.')[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replaceAll('-', '+').replaceAll('_', '/'));
    const value = (JSON.parse(json) as Record<string, unknown>)[claim];
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

async function tokenRequest(
  server: ServerMetadata,
  config: AppConfig,
  fields: Record<string, string>,
): Promise<Session> {
  const response = await fetch(server.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, client_id: config.client_id, resource: config.resource }),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new GrantRefused(String(body.error_description ?? 'Signing in failed: sign in again'));
  }
  return {
    access_token: body.access_token,
    refresh_token: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    expires_at: Date.now() + Number(body.expires_in ?? 300) * 1000,
    scope: String(body.scope ?? ''),
  };
}

export function currentSession(): Session | null {
  return JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Session | null;
}

function saveSession(session: Session): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

function forgetSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** Whether a tab of this browser signed in and nobody signed out since (see BROWSER_KEY). */
export function signedInOnThisBrowser(): boolean {
  try {
    return localStorage.getItem(BROWSER_KEY) === '1';
  } catch {
    return false;
  }
}

function markBrowserSignedIn(signedIn: boolean): void {
  try {
    if (signedIn) localStorage.setItem(BROWSER_KEY, '1');
    else localStorage.removeItem(BROWSER_KEY);
  } catch {
    // Storage refused (a private window's quota): a new tab then shows the app's own Sign in.
  }
}

let refreshing: Promise<Session | null> | null = null;

/** A valid access token, refreshed when it is about to expire; null when the user must sign in. */
export async function accessToken(config: AppConfig, force = false): Promise<string | null> {
  const session = currentSession();
  if (!session) return null;
  if (!force && session.expires_at - EXPIRY_MARGIN_MS > Date.now()) return session.access_token;
  // One refresh for every request that finds the token expired at once: refresh tokens rotate.
  refreshing ??= refresh(config, session).finally(() => {
    refreshing = null;
  });
  return (await refreshing)?.access_token ?? null;
}

async function refresh(config: AppConfig, session: Session): Promise<Session | null> {
  if (!session.refresh_token) {
    forgetSession();
    return null;
  }
  try {
    const next = await tokenRequest(await metadata(config), config, {
      grant_type: 'refresh_token',
      refresh_token: session.refresh_token,
    });
    saveSession(next);
    return next;
  } catch (error) {
    // Only a refusal ends the session; a network blip keeps it for the next try.
    if (!(error instanceof GrantRefused)) throw error;
    forgetSession();
    return null;
  }
}

/** Signs out: the server revokes the refresh token (and with it the grant), then the tab forgets it. */
export async function signOut(config: AppConfig): Promise<void> {
  const session = currentSession();
  forgetSession();
  // The server ends the browser's sign-in with the web app's grant: new tabs ask again.
  markBrowserSignedIn(false);
  const visit = Object.keys(sessionStorage).filter((key) => key.startsWith(VISIT_PREFIX));
  for (const key of visit) sessionStorage.removeItem(key);
  if (!session) return;
  await revokeTokens(await metadata(config), config, session);
}

/** Asks the server to revoke a session's tokens (the refresh token revokes its grant); best effort. */
async function revokeTokens(server: ServerMetadata, config: AppConfig, session: Session): Promise<void> {
  if (!server.revocation_endpoint) return;
  for (const token of [session.refresh_token, session.access_token]) {
    if (!token) continue;
    await fetch(server.revocation_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: config.client_id }),
    }).catch(() => undefined);
  }
}

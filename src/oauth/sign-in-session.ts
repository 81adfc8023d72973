import { randomBytes } from 'node:crypto';
import type { McpScope } from '../domain/scopes.ts';
import type { OAuthDeps } from './deps.ts';
import { hashSecret, newSecret, sameHash } from './secrets.ts';
import { lifetimes } from './settings.ts';
import type { SignInCredential, SignInSessionRecord } from './store.ts';

/**
 * A browser signed in once at the authorization server stays signed in: its sign-in session (a
 * record under the account, named by an HttpOnly cookie) lets the next authorization from that
 * browser (a new tab of the web app, a deep link, a permission asked for in place) skip the key.
 * It ends when unused for `lifetimes.signInIdle`, after `lifetimes.signInAbsolute`, at sign-out, when
 * the person ends it from their list of sessions, and when the key it was signed in with is revoked.
 *
 * Two cookies, both HttpOnly, SameSite=Lax (a top-level navigation from the web app's own origin
 * carries them; a cross-site form post does not), Secure and `__Secure-` named over HTTPS:
 * - the sign-in cookie: `<account>.<sign-in id>.<secret>`; only the secret's hash is stored;
 * - the browser cookie: a random value set with the sign-in page, whose hash the authorization
 *   request keeps. A sign-in posted without it (a form forged on another site, or a client without
 *   cookies) still answers its request, but leaves no sign-in session behind.
 */
const SIGN_IN_COOKIE = 'notes-signin';
const BROWSER_COOKIE = 'notes-browser';
const COOKIE_PATH = '/oauth';
/** Longer than a pending request, so the page's cookie outlives the page. */
const BROWSER_COOKIE_SECONDS = lifetimes.pendingRequest * 2;

/** The browser side of a request: its cookies (API Gateway payload 2.0 `cookies`) and User-Agent. */
export interface BrowserRequest {
  cookies: ReadonlyMap<string, string>;
  userAgent: string | null;
}

export function browserRequest(cookies: readonly string[] | undefined, userAgent?: string): BrowserRequest {
  const jar = new Map<string, string>();
  for (const header of cookies ?? []) {
    for (const pair of header.split(';')) {
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      if (!jar.has(name)) jar.set(name, pair.slice(at + 1).trim());
    }
  }
  return { cookies: jar, userAgent: userAgent ? userAgent.slice(0, 200) : null };
}

function secure(issuer: string): boolean {
  return issuer.startsWith('https:');
}

function cookieName(issuer: string, base: string): string {
  return secure(issuer) ? `__Secure-${base}` : base;
}

function cookie(issuer: string, base: string, value: string, maxAgeS: number): string {
  const attributes = [
    `${cookieName(issuer, base)}=${value}`,
    `Path=${COOKIE_PATH}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeS))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (secure(issuer)) attributes.push('Secure');
  return attributes.join('; ');
}

/**
 * The browser cookie for a sign-in page, and the hash its request keeps. A browser that has one
 * keeps its value, so two sign-in pages open at once (two tabs) both stay bound to it.
 */
export function browserBinding(issuer: string, browser: BrowserRequest): { cookie: string; hash: string } {
  const held = browser.cookies.get(cookieName(issuer, BROWSER_COOKIE));
  const value = held && /^[A-Za-z0-9_-]{43}$/.test(held) ? held : newSecret();
  return { cookie: cookie(issuer, BROWSER_COOKIE, value, BROWSER_COOKIE_SECONDS), hash: hashSecret(value) };
}

/** Whether the request comes from the browser that opened the authorization request. */
export function fromSameBrowser(
  issuer: string,
  browser: BrowserRequest,
  hash: string | null | undefined,
): boolean {
  const value = browser.cookies.get(cookieName(issuer, BROWSER_COOKIE));
  return Boolean(value && hash && sameHash(hashSecret(value), hash));
}

/** The Set-Cookie that removes the sign-in cookie (an ended or unknown session). */
export function clearedSignInCookie(issuer: string): string {
  return cookie(issuer, SIGN_IN_COOKIE, '', 0);
}

export function hasSignInCookie(issuer: string, browser: BrowserRequest): boolean {
  return browser.cookies.has(cookieName(issuer, SIGN_IN_COOKIE));
}

/**
 * The sign-in session the request's cookie names, if it is live: the secret matches, it has not
 * ended or expired, and the credential it was made with still works (a revoked key ends it, should
 * the revocation not have reached it). A live session's idle expiry moves on.
 */
export async function liveSignIn(
  deps: OAuthDeps,
  browser: BrowserRequest,
): Promise<SignInSessionRecord | null> {
  const value = browser.cookies.get(cookieName(deps.settings.issuer, SIGN_IN_COOKIE));
  const [accountId, signInId, secret, ...rest] = (value ?? '').split('.');
  if (!accountId || !signInId || !secret || rest.length > 0 || value === undefined || value.length > 256) {
    return null;
  }
  const record = await deps.store.getSignIn(accountId, signInId);
  const now = deps.now();
  if (
    !record ||
    record.account_id !== accountId ||
    !sameHash(record.secret_hash, hashSecret(secret)) ||
    !signInLive(record, now)
  ) {
    return null;
  }
  if (!(await credentialLive(deps, record.account_id, record.credential))) {
    await deps.store.endSignIn(record.account_id, record.sign_in_id, now);
    return null;
  }
  await deps.store.touchSignIn(accountId, signInId, now, idleExpiry(now, record));
  return record;
}

/** Starts a sign-in session for the browser that just signed in; answers its Set-Cookie. */
export async function startSignInSession(
  deps: OAuthDeps,
  accountId: string,
  credential: SignInCredential,
  scopes: readonly McpScope[],
  browser: BrowserRequest,
): Promise<{ record: SignInSessionRecord; cookie: string }> {
  const now = deps.now();
  const nowS = Math.floor(now / 1000);
  const secret = newSecret();
  const record: SignInSessionRecord = {
    sign_in_id: `browser_${randomBytes(12).toString('hex')}`,
    account_id: accountId,
    secret_hash: hashSecret(secret),
    credential,
    scopes: [...scopes],
    user_agent: browser.userAgent,
    created_at: now,
    last_used_at: now,
    idle_expires_at_s: nowS + lifetimes.signInIdle,
    expires_at_s: nowS + lifetimes.signInAbsolute,
    revoked_at: null,
  };
  await deps.store.putSignIn(record);
  const value = `${accountId}.${record.sign_in_id}.${secret}`;
  return { record, cookie: cookie(deps.settings.issuer, SIGN_IN_COOKIE, value, lifetimes.signInAbsolute) };
}

export function signInLive(record: SignInSessionRecord, now: number): boolean {
  const nowS = Math.floor(now / 1000);
  return record.revoked_at === null && record.idle_expires_at_s > nowS && record.expires_at_s > nowS;
}

function idleExpiry(now: number, record: SignInSessionRecord): number {
  return Math.min(Math.floor(now / 1000) + lifetimes.signInIdle, record.expires_at_s);
}

/**
 * Whether what signed a person in still works: an API key must still exist, belong to the account
 * and not be revoked. A sign-in at the identity provider stands (the provider ended it there).
 */
export async function credentialLive(
  deps: Pick<OAuthDeps, 'accounts'>,
  accountId: string,
  credential: SignInCredential | undefined,
): Promise<boolean> {
  if (credential?.kind !== 'api_key') return true;
  const key = await deps.accounts.getApiKeyByHash(credential.key_hash);
  return (
    key !== null &&
    key.revoked_at === null &&
    key.account_id === accountId &&
    key.key_id === credential.key_id
  );
}

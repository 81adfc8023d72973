import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import { getAccessTokenVerifier } from '../../src/oauth/verifier.ts';
import { getServices } from '../../src/wiring/services.ts';
import { Browser as CookieBrowser } from '../support/browser.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { consentDecision } from '../support/oauth-forms.ts';
import { type OidcProviderStandIn, startOidcProviderStandIn } from '../support/oidc-provider-stand-in.ts';

/**
 * The OIDC upstream (Cognito on AWS) against a real OpenID provider: `oidc-provider` plays Cognito's
 * managed login, with its login interaction completed by the test for whichever user is "typing".
 * The browser (this test, with a cookie jar) goes facade -> provider -> facade callback -> consent.
 */
const UPSTREAM_CLIENT = { id: 'notes-facade', secret: 'upstream-client-secret-for-tests' };
const REDIRECT = 'http://127.0.0.1/callback';
const VERIFIER = 'another-test-code-verifier-long-enough-for-pkce-0123456789';

let provider: OidcProviderStandIn;
let base: string;
let providerUrl: string;
let service: InProcessService;

/** A browser that follows the sign-in between the facade and the provider. */
class Browser extends CookieBrowser {
  constructor() {
    super(() => [base, providerUrl]);
  }
}

beforeAll(async () => {
  // The provider's address must be known before the runtime reads its configuration; the facade's
  // (its client's redirect URI) only once the runtime listens.
  provider = await startOidcProviderStandIn();
  providerUrl = provider.url;
  Object.assign(process.env, {
    NOTES_OAUTH_UPSTREAM: 'oidc',
    NOTES_OIDC_ISSUER: providerUrl,
    NOTES_OIDC_CLIENT_ID: UPSTREAM_CLIENT.id,
    NOTES_OIDC_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
  });
  // The runtime serves the OAuth handlers, with its own address as NOTES_PUBLIC_URL.
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  provider.serve(UPSTREAM_CLIENT, `${base}/oauth/callback`);
});

afterAll(async () => {
  await provider?.close();
  await service?.stop();
});

// ---- the MCP client's side ----------------------------------------------------------------------------

async function registerClient(at = base): Promise<string> {
  const response = await fetch(`${at}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'OIDC test client', redirect_uris: [REDIRECT] }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The code exchange at the token endpoint of `at`. */
function exchangeCode(code: string, clientId: string, at = base): Promise<Response> {
  return fetch(`${at}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: VERIFIER,
    }),
  });
}

function authorizeUrl(clientId: string, at = base, extra: Record<string, string> = {}): string {
  return `${at}/oauth/authorize?${new URLSearchParams({
    ...extra,
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    resource: `${at}/mcp`,
    scope: 'notes:read',
    state: 'oidc-state',
  })}`;
}

/** Signs `user` in at the provider through `browser`, approves, exchanges the code: the token's account. */
async function signInAs(
  browser: Browser,
  user: string,
  how: { signedInHere?: boolean; prompt?: string } = {},
): Promise<{ accountId: string; consentHtml: string }> {
  provider.nextUser = user;
  const clientId = await registerClient();
  const consent = await browser.open(authorizeUrl(clientId, base, how.prompt ? { prompt: how.prompt } : {}));
  // A browser signed in here already gets the consent page at once, without the provider.
  expect(new URL(consent.url).pathname).toBe(how.signedInHere ? '/oauth/authorize' : '/oauth/callback');
  expect(consent.response.status).toBe(200);
  const consentHtml = await consent.response.text();
  const approved = await browser.open(`${base}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: consentDecision(consentHtml, 'approve').toString(),
  });
  expect(approved.response.status).toBe(303);
  const back = new URL(approved.response.headers.get('location') ?? '');
  expect(back.searchParams.get('state')).toBe('oidc-state');
  const tokenResponse = await exchangeCode(back.searchParams.get('code') ?? '', clientId);
  expect(tokenResponse.status).toBe(200);
  const tokens = (await tokenResponse.json()) as { access_token: string; scope: string };
  expect(tokens.scope).toBe('notes:read');
  const grant = await getAccessTokenVerifier().verify(tokens.access_token);
  expect(grant).toEqual({
    accountId: expect.any(String),
    clientId,
    scopes: ['notes:read'],
    grantId: expect.any(String),
  });
  return { accountId: grant.accountId, consentHtml };
}

// ---- the tests -----------------------------------------------------------------------------------------

describe('sign-in through an upstream OpenID provider (the Cognito stand-in)', () => {
  it('answers with the iss of the issuer the client started at, though the provider returns to the primary one (RFC 9207)', async () => {
    // Locally `localhost` is an issuer of its own; the provider knows one callback, on 127.0.0.1.
    const alias = base.replace('127.0.0.1', 'localhost');
    provider.nextUser = 'iss-check-user';
    const clientId = await registerClient(alias);
    const browser = new CookieBrowser(() => [base, alias, providerUrl]);
    const consent = await browser.open(authorizeUrl(clientId, alias));
    expect(new URL(consent.url).origin).toBe(base);
    const approved = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: consentDecision(await consent.response.text(), 'approve').toString(),
    });
    const back = new URL(approved.response.headers.get('location') ?? '');
    expect(back.searchParams.get('iss')).toBe(alias);
    expect((await exchangeCode(back.searchParams.get('code') ?? '', clientId, alias)).status).toBe(200);
  });

  it('sends the browser to the provider with PKCE, state and nonce, and back to /oauth/callback', async () => {
    const clientId = await registerClient();
    const response = await fetch(authorizeUrl(clientId), { redirect: 'manual' });
    expect(response.status).toBe(302);
    const upstream = new URL(response.headers.get('location') ?? '');
    expect(upstream.origin).toBe(providerUrl);
    expect(upstream.searchParams.get('client_id')).toBe(UPSTREAM_CLIENT.id);
    expect(upstream.searchParams.get('redirect_uri')).toBe(`${base}/oauth/callback`);
    expect(upstream.searchParams.get('code_challenge_method')).toBe('S256');
    expect(upstream.searchParams.get('scope')).toBe('openid email');
    expect(upstream.searchParams.get('nonce')).toBeTruthy();
    expect(upstream.searchParams.get('state')).toBeTruthy();
    expect(upstream.searchParams.get('state')).not.toBe('oidc-state');
  });

  it('signs in at the provider, shows consent for a new account and issues tokens for it', async () => {
    const { accountId, consentHtml } = await signInAs(new Browser(), 'alice');
    expect(consentHtml).toContain('OIDC test client');
    expect(consentHtml).toContain('alice@example.com');
    expect(consentHtml).toContain('notes:read');
    const account = await getServices().accounts.getAccount(accountId);
    expect(account?.name).toBe('alice@example.com');
  });

  it('maps the same identity to the same account on every sign-in, and another identity to another', async () => {
    const browser = new Browser();
    const first = await signInAs(browser, 'carol');
    // Same browser: the service's sign-in session signs carol in again without the provider.
    const again = await signInAs(browser, 'carol', { signedInHere: true });
    // Asked to sign in again (prompt=login): the provider's own session signs carol in without asking.
    const atProvider = await signInAs(browser, 'carol', { prompt: 'login' });
    // A fresh browser: carol signs in from scratch.
    const fresh = await signInAs(new Browser(), 'carol');
    const dave = await signInAs(new Browser(), 'dave');
    expect(again.accountId).toBe(first.accountId);
    expect(atProvider.accountId).toBe(first.accountId);
    expect(fresh.accountId).toBe(first.accountId);
    expect(dave.accountId).not.toBe(first.accountId);
  });

  it('passes a sign-in cancelled at the provider back to the client as access_denied', async () => {
    provider.nextUser = 'cancel';
    const clientId = await registerClient();
    const { response, url } = await new Browser().open(authorizeUrl(clientId));
    expect(new URL(url).pathname).toBe('/oauth/callback');
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('oidc-state');
  });

  it('refuses a callback that matches no pending request, or one replayed, with a page and no redirect', async () => {
    const unknown = await fetch(`${base}/oauth/callback?code=abc&state=no-such-request`, {
      redirect: 'manual',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();

    provider.nextUser = 'erin';
    const browser = new Browser();
    const consent = await browser.open(authorizeUrl(await registerClient()));
    expect(consent.response.status).toBe(200);
    const replay = await fetch(consent.url, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
  });

  it('does not take API keys on this server', async () => {
    const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
    const response = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request_id: 'x', csrf: 'y', api_key: apiKey, action: 'sign_in' }),
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain(apiKey);
  });
});

import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
// @ts-expect-error oidc-provider ships no type declarations; the little used here is typed below.
import ProviderModule from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import { getAccessTokenVerifier } from '../../src/oauth/verifier.ts';
import { getServices } from '../../src/services.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { consentDecision } from '../support/oauth-forms.ts';

/**
 * The OIDC upstream (Cognito on AWS) against a real OpenID provider: `oidc-provider` plays Cognito's
 * managed login, with its login interaction completed by the test for whichever user is "typing".
 * The browser (this test, with a cookie jar) goes facade -> provider -> facade callback -> consent.
 */
interface Interaction {
  prompt: { name: string };
  params: { client_id: string; scope?: string };
  session?: { accountId?: string };
}
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (init: {
    accountId: string;
    clientId: string;
  }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
}
const Provider = ProviderModule as new (
  issuer: string,
  configuration: Record<string, unknown>,
) => OidcProvider;

const UPSTREAM_CLIENT = { id: 'notes-facade', secret: 'upstream-client-secret-for-tests' };
const REDIRECT = 'http://127.0.0.1/callback';
const VERIFIER = 'another-test-code-verifier-long-enough-for-pkce-0123456789';

let providerServer: Server;
let base: string;
let providerUrl: string;
let service: InProcessService;
/** Who signs in at the provider next; `cancel` plays a user who closes the sign-in. */
let nextUser: string | 'cancel' = 'alice';

function listen(server: Server): Promise<string> {
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** The provider, on the server already listening at `providerUrl`, with the facade as its client. */
function startProvider(): void {
  const provider = new Provider(providerUrl, {
    clients: [
      {
        client_id: UPSTREAM_CLIENT.id,
        client_secret: UPSTREAM_CLIENT.secret,
        redirect_uris: [`${base}/oauth/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@example.com` }),
    }),
    // Like Cognito's ID tokens, which carry the user's email.
    claims: { openid: ['sub', 'email'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ['cookie-signing-key-for-tests'] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    // Consent at the provider is implied for this first-party client (as with Cognito's app client).
    loadExistingGrant: async (ctx: {
      oidc: { client: { clientId: string }; session: { accountId: string }; provider: OidcProvider };
    }) => {
      const grant = new ctx.oidc.provider.Grant({
        accountId: ctx.oidc.session.accountId,
        clientId: ctx.oidc.client.clientId,
      });
      grant.addOIDCScope('openid');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  providerServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    // The provider's login page, played by the test: sign the next user in (or cancel).
    (async () => {
      const details = await provider.interactionDetails(req, res);
      const result =
        nextUser === 'cancel'
          ? { error: 'access_denied', error_description: 'The user closed the sign-in' }
          : { login: { accountId: nextUser } };
      expect(details.params.client_id).toBe(UPSTREAM_CLIENT.id);
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
}

beforeAll(async () => {
  // The provider's address must be known before the runtime reads its configuration; the facade's
  // (its client's redirect URI) only once the runtime listens.
  providerServer = createServer();
  providerUrl = await listen(providerServer);
  Object.assign(process.env, {
    NOTES_OAUTH_UPSTREAM: 'oidc',
    NOTES_OIDC_ISSUER: providerUrl,
    NOTES_OIDC_CLIENT_ID: UPSTREAM_CLIENT.id,
    NOTES_OIDC_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
  });
  // The runtime serves the OAuth handlers, with its own address as NOTES_PUBLIC_URL.
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  startProvider();
});

afterAll(async () => {
  await new Promise<void>((done) => providerServer?.close(() => done()));
  providerServer?.closeAllConnections();
  await service?.stop();
});

// ---- a browser with cookies ---------------------------------------------------------------------------

class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  /**
   * Follows redirects between the facade and the provider, as a browser would, and stops at the first
   * answer that is not a redirect or at a redirect that leaves them (back to the MCP client).
   */
  async open(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url;
    let request = init;
    for (let hop = 0; hop < 20; hop++) {
      const target = new URL(current);
      const response = await fetch(target, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), cookie: this.cookieHeader(target) },
      });
      this.keep(target, response);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { response, url: current };
      const next = new URL(location, target);
      if (next.origin !== base && next.origin !== providerUrl) return { response, url: current };
      current = next.href;
      request = {};
    }
    throw new Error('Too many redirects');
  }

  private cookieHeader(url: URL): string {
    return [...(this.jar.get(url.host)?.entries() ?? [])]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  private keep(url: URL, response: Response): void {
    const cookies = this.jar.get(url.host) ?? new Map<string, string>();
    this.jar.set(url.host, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', val = ''] = attribute.trim().split('=');
        if (/^max-age$/i.test(key)) return Number(val) <= 0;
        if (/^expires$/i.test(key)) return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  }
}

// ---- the MCP client's side ----------------------------------------------------------------------------

async function registerClient(): Promise<string> {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'OIDC test client', redirect_uris: [REDIRECT] }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string): string {
  return `${base}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    resource: `${base}/mcp`,
    scope: 'notes:read',
    state: 'oidc-state',
  })}`;
}

/** Signs `user` in at the provider through `browser`, approves, exchanges the code: the token's account. */
async function signInAs(browser: Browser, user: string): Promise<{ accountId: string; consentHtml: string }> {
  nextUser = user;
  const clientId = await registerClient();
  const consent = await browser.open(authorizeUrl(clientId));
  expect(new URL(consent.url).pathname).toBe('/oauth/callback');
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
  const tokenResponse = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: VERIFIER,
    }),
  });
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
    // Same browser: the provider's session signs carol in again without asking.
    const again = await signInAs(browser, 'carol');
    // A fresh browser: carol signs in from scratch.
    const fresh = await signInAs(new Browser(), 'carol');
    const dave = await signInAs(new Browser(), 'dave');
    expect(again.accountId).toBe(first.accountId);
    expect(fresh.accountId).toBe(first.accountId);
    expect(dave.accountId).not.toBe(first.accountId);
  });

  it('passes a sign-in cancelled at the provider back to the client as access_denied', async () => {
    nextUser = 'cancel';
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

    nextUser = 'erin';
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

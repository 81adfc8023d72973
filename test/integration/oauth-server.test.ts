import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import { getAccessTokenVerifier } from '../../src/oauth/verifier.ts';
import { InvalidAccessTokenError } from '../../src/ports/access-tokens.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';
import { consentDecision, heldScopes, hiddenFields, scopeCheckboxes } from '../support/oauth-forms.ts';

/**
 * The authorization server over real HTTP: the local runtime (in this process) serves the six OAuth
 * handlers of `publicRoutes` through its API Gateway adapter, on its table and accounts, with its own
 * address as issuer and the local upstream (sign in with an API key). The test plays the MCP client
 * (partly with openid-client, a real OAuth client) and the user's browser.
 */
let base: string;
let service: InProcessService;
let apiKey: string;
let accountId: string;
const logs: string[] = [];
const restoreWrites: Array<() => void> = [];

/** Keeps what the handlers log (instead of printing it) for the log hygiene test: their streams and the console. */
function captureOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
    restoreWrites.push(() => {
      stream.write = write;
    });
  }
  // The logger prints through the console off Lambda (src/logging.ts), which the test runner takes over.
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const print = console[method];
    console[method] = (...args: unknown[]) => {
      logs.push(`${args.map(String).join(' ')}\n`);
    };
    restoreWrites.push(() => {
      console[method] = print;
    });
  }
}

beforeAll(async () => {
  captureOutput();
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  // The runtime sets NOTES_PUBLIC_URL to its own address and makes a signing key on first start.
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  accountId = String((await service.api('GET', '/v1/account')).body.account_id);
});

afterAll(async () => {
  for (const restore of restoreWrites) restore();
  await service?.stop();
});

// ---- the MCP client's and the browser's side -------------------------------------------------------

const REDIRECT = 'http://127.0.0.1/callback';

interface Client {
  client_id: string;
  redirect_uris: string[];
}

async function register(metadata: Record<string, unknown> = {}): Promise<Client> {
  const response = await postJson('/oauth/register', {
    client_name: 'Test MCP client',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    ...metadata,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Client;
}

function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function postForm(path: string, fields: Record<string, string> | URLSearchParams): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
}

function get(url: string): Promise<Response> {
  return fetch(url.startsWith('http') ? url : `${base}${url}`, { redirect: 'manual' });
}

const VERIFIER = 'a-test-code-verifier-that-is-long-enough-for-pkce-0123456789';

function authorizeUrl(client: Client, overrides: Record<string, string | null> = {}): string {
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0] ?? REDIRECT,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    resource: `${base}/mcp`,
    state: 'state-123',
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) query.set(name, value);
  return `${base}/oauth/authorize?${query}`;
}

/** GET /oauth/authorize, then the sign-in page: returns the consent page's response. */
async function signIn(url: string, key = apiKey): Promise<Response> {
  const signInPage = await get(url);
  expect(signInPage.status).toBe(200);
  const fields = hiddenFields(await signInPage.text());
  return postForm('/oauth/authorize', { ...fields, api_key: key, action: 'sign_in' });
}

/** The user's choice on the consent page: boxes ticked or unticked beyond the page's defaults. */
type Choice = Parameters<typeof consentDecision>[2];

/** The whole browser part: authorize, sign in, approve. Returns the redirect back to the client. */
async function authorize(
  client: Client,
  overrides: Record<string, string | null> = {},
  choice: Choice = {},
): Promise<URL> {
  const consent = await signIn(authorizeUrl(client, overrides));
  expect(consent.status).toBe(200);
  const decision = await postForm(
    '/oauth/authorize',
    consentDecision(await consent.text(), 'approve', choice),
  );
  expect(decision.status).toBe(303);
  return new URL(decision.headers.get('location') ?? '');
}

async function codeFor(
  client: Client,
  overrides: Record<string, string | null> = {},
  choice: Choice = {},
): Promise<string> {
  const back = await authorize(client, overrides, choice);
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();
  return code as string;
}

async function token(
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await postForm('/oauth/token', fields);
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

function exchange(client: Client, code: string, overrides: Record<string, string> = {}) {
  return token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uris[0] ?? REDIRECT,
    client_id: client.client_id,
    code_verifier: VERIFIER,
    resource: `${base}/mcp`,
    ...overrides,
  });
}

function refresh(client: Client, refreshToken: string, overrides: Record<string, string> = {}) {
  return token({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...overrides,
  });
}

async function rejected(accessToken: string): Promise<string> {
  const error = await getAccessTokenVerifier()
    .verify(accessToken)
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(InvalidAccessTokenError);
  return (error as Error).message;
}

// ---- the tests ---------------------------------------------------------------------------------------

describe('discovery', () => {
  it('publishes protected resource metadata (RFC 9728) at the root and the /mcp path forms', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: `${base}/mcp`,
        authorization_servers: [base],
        scopes_supported: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
        bearer_methods_supported: ['header'],
        resource_name: 'Notes MCP server',
      });
    }
  });

  it('publishes authorization server metadata (RFC 8414) with S256 PKCE, public clients and registration', async () => {
    const metadata = (await (await get('/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >;
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/oauth/jwks`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
      client_id_metadata_document_supported: true,
    });
  });

  it('publishes the signing key as a JWKS, public half only', async () => {
    const { keys } = (await (await get('/oauth/jwks')).json()) as { keys: Array<Record<string, string>> };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0]?.kid).toBeTruthy();
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('is what openid-client discovers as an OAuth 2.0 authorization server', async () => {
    const config = await oidc.discovery(new URL(base), 'any', undefined, oidc.None(), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().issuer).toBe(base);
    expect(config.serverMetadata().supportsPKCE()).toBe(true);
  });
});

describe('client registration', () => {
  it('registers a public client with loopback and https redirect URIs', async () => {
    const response = await postJson('/oauth/register', {
      client_name: 'Desktop client',
      redirect_uris: ['http://127.0.0.1/callback', 'https://app.example.com/oauth/callback'],
      token_endpoint_auth_method: 'none',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      client_name: 'Desktop client',
      redirect_uris: ['http://127.0.0.1/callback', 'https://app.example.com/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(body.client_id).toEqual(expect.any(String));
    expect(body).not.toHaveProperty('client_secret');
    expect(body.application_type).toBe('native');
  });

  it('registers the application_type a client declares and refuses a web client with a loopback redirect URI', async () => {
    const web = await postJson('/oauth/register', {
      redirect_uris: ['https://app.example.com/oauth/callback'],
      application_type: 'web',
    });
    expect(web.status).toBe(201);
    expect(await web.json()).toMatchObject({ application_type: 'web' });
    const conflict = await postJson('/oauth/register', {
      redirect_uris: ['http://127.0.0.1/callback'],
      application_type: 'web',
    });
    expect(conflict.status).toBe(400);
    expect(await conflict.json()).toMatchObject({
      error: 'invalid_redirect_uri',
      error_description: expect.stringMatching(/does not suit a web application/),
    });
  });

  it('refuses redirect URIs that are plain http, carry a fragment or use a script scheme', async () => {
    for (const uri of ['http://app.example.com/cb', 'https://app.example.com/cb#f', 'javascript:alert(1)']) {
      const response = await postJson('/oauth/register', { redirect_uris: [uri] });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'invalid_redirect_uri',
        error_description: expect.any(String),
      });
    }
  });

  it('refuses app schemes that are not a known MCP client or reverse-DNS, and registers those that are', async () => {
    for (const uri of ['ms-settings://x/', 'steam://run/1', 'x-safari-https://evil.example/cb']) {
      const response = await postJson('/oauth/register', { redirect_uris: [uri] });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
    await register({
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'com.example.app:/oauth/callback'],
    });
  });

  it('registers a client asking for client_secret_basic as public (none, no secret), and refuses bodies that are not JSON', async () => {
    const secret = await postJson('/oauth/register', {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(secret.status).toBe(201);
    const body = (await secret.json()) as Record<string, unknown>;
    expect(body.token_endpoint_auth_method).toBe('none');
    expect(body).not.toHaveProperty('client_secret');
    const form = await postForm('/oauth/register', { redirect_uris: REDIRECT });
    expect(form.status).toBe(400);
    expect(((await form.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });
});

describe('authorization with sign-in by API key', () => {
  it('runs the whole flow for openid-client: sign-in, consent, code with state and iss, PKCE token exchange', async () => {
    const client = await register();
    const config = await oidc.discovery(new URL(base), client.client_id, undefined, oidc.None(), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
      state,
    });

    const signInPage = await get(url.href);
    expect(signInPage.status).toBe(200);
    const signInHtml = await signInPage.text();
    expect(signInHtml).toContain('Test MCP client');
    expect(signInHtml).toContain('name="api_key"');

    const consent = await postForm('/oauth/authorize', {
      ...hiddenFields(signInHtml),
      api_key: apiKey,
      action: 'sign_in',
    });
    expect(consent.status).toBe(200);
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consent.headers.get('x-frame-options')).toBe('DENY');
    expect(consent.headers.get('cache-control')).toBe('no-store');
    const consentHtml = await consent.text();
    expect(consentHtml).toContain('Test MCP client');
    expect(consentHtml).toContain('127.0.0.1');
    expect(consentHtml).toContain('notes:read');
    expect(consentHtml).toContain('notes:process');
    expect(consentHtml).not.toContain('notes:delete');
    expect(consentHtml).not.toContain('<script');
    expect(consentHtml).not.toContain(apiKey);

    const approved = await postForm('/oauth/authorize', consentDecision(consentHtml, 'approve'));
    expect(approved.status).toBe(303);
    const back = new URL(approved.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(base);

    const tokens = await oidc.authorizationCodeGrant(
      config,
      back,
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource: `${base}/mcp` },
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('notes:read notes:process');
    expect(tokens.refresh_token).toBeTruthy();

    const grant = await getAccessTokenVerifier().verify(tokens.access_token);
    expect(grant).toEqual({
      accountId,
      clientId: client.client_id,
      scopes: ['notes:read', 'notes:process'],
      grantId: expect.any(String),
    });
    const [header, payload] = tokens.access_token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      iss: base,
      aud: `${base}/mcp`,
      sub: accountId,
      client_id: client.client_id,
    });
    expect(Number(payload?.exp) - Number(payload?.iat)).toBe(3600);
    expect(payload?.jti).toEqual(expect.any(String));
  });

  it('answers token requests with no-store and asks for form-encoded parameters', async () => {
    const client = await register();
    const { status, body } = await exchange(client, await codeFor(client));
    expect(status).toBe(200);
    const again = await postForm('/oauth/token', { grant_type: 'authorization_code' });
    expect(again.headers.get('cache-control')).toBe('no-store');
    const json = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: body.refresh_token }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('grants the scopes asked for, and refuses unknown scopes with invalid_scope on the redirect', async () => {
    const client = await register();
    const code = await codeFor(client, { scope: 'notes:read notes:delete' }, { tick: ['notes:delete'] });
    const { body } = await exchange(client, code);
    expect(body.scope).toBe('notes:read notes:delete');
    expect((await getAccessTokenVerifier().verify(body.access_token as string)).scopes).toEqual([
      'notes:read',
      'notes:delete',
    ]);

    const unknown = await get(authorizeUrl(client, { scope: 'notes:read admin' }));
    expect(unknown.status).toBe(302);
    const back = new URL(unknown.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('state')).toBe('state-123');
  });

  it('rejects a replayed code with invalid_grant and revokes the tokens the code issued', async () => {
    const client = await register();
    const code = await codeFor(client);
    const first = await exchange(client, code);
    expect(first.status).toBe(200);
    await expect(getAccessTokenVerifier().verify(first.body.access_token as string)).resolves.toBeDefined();

    const replay = await exchange(client, code);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(await rejected(first.body.access_token as string)).toMatch(/revoked/);
    expect((await refresh(client, first.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  it('rejects a code exchange whose PKCE verifier does not match, and the code is spent', async () => {
    const client = await register();
    const code = await codeFor(client);
    const wrong = await exchange(client, code, { code_verifier: `${VERIFIER.slice(0, -1)}X` });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/PKCE/) });
    expect((await exchange(client, code)).body.error).toBe('invalid_grant');
  });

  it('binds the code to its client, its exact redirect URI and its resource', async () => {
    const client = await register();
    const other = await register();
    expect((await exchange(client, await codeFor(client), { client_id: other.client_id })).body.error).toBe(
      'invalid_grant',
    );
    expect(
      (await exchange(client, await codeFor(client), { redirect_uri: 'http://127.0.0.1:8080/callback' })).body
        .error,
    ).toBe('invalid_grant');
    expect(
      (await exchange(client, await codeFor(client), { resource: 'https://other.example/mcp' })).body.error,
    ).toBe('invalid_target');
    expect((await exchange(client, 'not-a-code')).body.error).toBe('invalid_grant');
  });

  it('redirects invalid_target to the client when the resource is not the MCP server', async () => {
    const client = await register();
    const response = await get(authorizeUrl(client, { resource: 'https://other.example.com/mcp' }));
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('invalid_target');
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('iss')).toBe(base);
  });

  it('requires PKCE with S256 and response_type=code, answering on the redirect', async () => {
    const client = await register();
    for (const [overrides, error] of [
      [{ code_challenge_method: 'plain', code_challenge: VERIFIER }, 'invalid_request'],
      [{ code_challenge_method: null, code_challenge: null }, 'invalid_request'],
      [{ code_challenge: 'too-short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ] as const) {
      const response = await get(authorizeUrl(client, overrides));
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get('location') ?? '').searchParams.get('error')).toBe(error);
    }
  });

  it('shows an error page, and does not launch the app, for an invalid request to an app scheme redirect URI', async () => {
    for (const redirect of [
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'com.example.app:/oauth/callback',
    ]) {
      const client = await register({ redirect_uris: [redirect] });
      for (const overrides of [
        { response_type: 'x' },
        { code_challenge: null },
        { resource: 'https://other.example/mcp' },
      ] as Array<Record<string, string | null>>) {
        const response = await get(authorizeUrl(client, overrides));
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(response.headers.get('content-type')).toContain('text/html');
      }
    }
  });

  it('shows an error page, and never redirects, for an unregistered redirect URI or an unknown client', async () => {
    const client = await register();
    for (const url of [
      authorizeUrl(client, { redirect_uri: 'https://attacker.example.com/callback' }),
      authorizeUrl(client, { redirect_uri: 'http://127.0.0.1/other' }),
      authorizeUrl(client, { redirect_uri: null }),
      authorizeUrl({ client_id: 'no-such-client', redirect_uris: [REDIRECT] }),
      authorizeUrl({ client_id: 'https://127.0.0.1/metadata.json', redirect_uris: [REDIRECT] }),
    ]) {
      const response = await get(url);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('accepts a loopback redirect URI on any port and redirects to that port', async () => {
    const client = await register({ redirect_uris: ['http://127.0.0.1/callback'] });
    const back = await authorize(client, { redirect_uri: 'http://127.0.0.1:49152/callback' });
    expect(back.port).toBe('49152');
    const code = back.searchParams.get('code') as string;
    const { status } = await exchange(client, code, { redirect_uri: 'http://127.0.0.1:49152/callback' });
    expect(status).toBe(200);
  });

  it('shows the sign-in page again, without the key, when the API key is wrong or revoked-looking', async () => {
    const client = await register();
    const wrongKey = `svc_sk_${'x'.repeat(43)}`;
    const response = await signIn(authorizeUrl(client), wrongKey);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('not accepted');
    expect(html).toContain('name="api_key"');
    expect(html).not.toContain(wrongKey);
  });

  it('redirects with access_denied and the state when the user denies', async () => {
    const client = await register();
    const consent = await signIn(authorizeUrl(client));
    const denied = await postForm('/oauth/authorize', {
      ...hiddenFields(await consent.text()),
      action: 'deny',
    });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('refuses a consent form with a wrong CSRF token, and decides each request only once', async () => {
    const client = await register();
    const consent = await signIn(authorizeUrl(client));
    const html = await consent.text();
    const fields = hiddenFields(html);
    const forged = await postForm('/oauth/authorize', { ...fields, csrf: 'forged', action: 'approve' });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
    const approve = consentDecision(html, 'approve');
    expect((await postForm('/oauth/authorize', approve)).status).toBe(303);
    const twice = await postForm('/oauth/authorize', approve);
    expect(twice.status).toBe(400);
    expect(twice.headers.get('location')).toBeNull();
  });

  it('refuses to approve on the sign-in form, before anyone has signed in', async () => {
    const client = await register();
    const page = await get(authorizeUrl(client));
    const approve = await postForm('/oauth/authorize', {
      ...hiddenFields(await page.text()),
      action: 'approve',
    });
    expect(approve.status).toBe(400);
    expect(approve.headers.get('location')).toBeNull();
  });

  it('escapes the client name it shows', async () => {
    const client = await register({ client_name: '<img src=x onerror=alert(1)>"Evil"' });
    const consent = await signIn(authorizeUrl(client));
    const html = await consent.text();
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;Evil&quot;');
  });
});

// ---- least privilege: partial approval and step-up -----------------------------------------------

const ALL_SCOPES = 'notes:read notes:write notes:process notes:delete';

/** A JSON-RPC call to /mcp with the access token. */
function mcp(accessToken: string, body: unknown): Promise<Response> {
  return postMcpWithToken(`${base}/mcp`, accessToken, body);
}

/** updateNote needs notes:write; the scope check answers before the tool runs, so any note ID does. */
function rename(accessToken: string): Promise<Response> {
  return mcp(accessToken, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'updateNote', arguments: { note_id: crypto.randomUUID(), title: 'Renamed' } },
  });
}

/** The client's tokens for the default grant, then a refused call that asks for notes:write (step-up). */
async function refusedForWrite(client: Client): Promise<{ tokens: Record<string, string>; scope: string }> {
  const { body: tokens } = await exchange(client, await codeFor(client));
  expect(tokens.scope).toBe('notes:read notes:process');
  const refused = await rename(tokens.access_token as string);
  expect(refused.status).toBe(403);
  const scope = /scope="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1];
  expect(scope).toBe('notes:read notes:write notes:process');
  // Until the user decides, the grant's refresh answers invalid_grant: the client must authorize again.
  const held = await refresh(client, tokens.refresh_token as string);
  expect(held.body).toEqual({
    error: 'invalid_grant',
    error_description: expect.stringMatching(/authorize again/),
  });
  return { tokens, scope: scope as string };
}

describe('least privilege on the consent page', () => {
  it('shows every requested scope as a labelled checkbox in a fieldset, with notes:delete unticked', async () => {
    const client = await register();
    const consent = await signIn(authorizeUrl(client, { scope: ALL_SCOPES }));
    const html = await consent.text();
    expect(scopeCheckboxes(html)).toEqual([
      { scope: 'notes:read', checked: true },
      { scope: 'notes:write', checked: true },
      { scope: 'notes:process', checked: true },
      { scope: 'notes:delete', checked: false },
    ]);
    expect(heldScopes(html)).toEqual([]);
    expect(html).toMatch(/<fieldset>\s*<legend>Allow it to:<\/legend>/);
    for (const id of ['scope-notes-read', 'scope-notes-write', 'scope-notes-process', 'scope-notes-delete']) {
      expect(html).toContain(`id="${id}"`);
      expect(html).toContain(`<label for="${id}">`);
    }
    expect(html).not.toContain('<script');
  });

  it('issues a code and tokens with exactly the approved scopes when the user approves less than was asked', async () => {
    const client = await register();
    const code = await codeFor(client, { scope: ALL_SCOPES }, { untick: ['notes:write'] });
    const { status, body } = await exchange(client, code);
    expect(status).toBe(200);
    // The scope differs from the request, so the token response says what was granted (RFC 6749 5.1).
    expect(body.scope).toBe('notes:read notes:process');
    expect((await getAccessTokenVerifier().verify(body.access_token as string)).scopes).toEqual([
      'notes:read',
      'notes:process',
    ]);
    expect((await rename(body.access_token as string)).status).toBe(403);
    // A refresh cannot take back what the user left out.
    const wider = await refresh(client, body.refresh_token as string, { scope: 'notes:read notes:write' });
    expect(wider.body.error).toBe('invalid_scope');
  });

  it('redirects with access_denied, and no code, when the user approves with nothing ticked', async () => {
    const client = await register();
    const back = await authorize(
      client,
      { scope: 'notes:read notes:delete' },
      { untick: ['notes:read', 'notes:delete'] },
    );
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('iss')).toBe(base);
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('refuses a consent form that approves a scope the application did not ask for', async () => {
    const client = await register();
    const consent = await signIn(authorizeUrl(client, { scope: 'notes:read' }));
    const forged = consentDecision(await consent.text(), 'approve');
    forged.append('scope', 'notes:delete');
    const response = await postForm('/oauth/authorize', forged);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('did not ask for');
  });

  it('adds an approved step-up to the grant the client has: its earlier tokens keep working, now with the union', async () => {
    const client = await register();
    const { tokens, scope } = await refusedForWrite(client);

    const consent = await signIn(authorizeUrl(client, { scope }));
    const html = await consent.text();
    expect(heldScopes(html)).toEqual(['notes:read', 'notes:process']);
    expect(scopeCheckboxes(html)).toEqual([{ scope: 'notes:write', checked: true }]);
    expect(html).toMatch(/<legend>It now also asks to:<\/legend>/);
    const approved = await postForm('/oauth/authorize', consentDecision(html, 'approve'));
    const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code') as string;
    const widened = await exchange(client, code);
    expect(widened.body.scope).toBe('notes:read notes:write notes:process');
    const grant = await getAccessTokenVerifier().verify(widened.body.access_token as string);
    // The same grant, widened: not a second one beside it.
    expect(grant.grantId).toBe(
      (await getAccessTokenVerifier().verify(tokens.access_token as string)).grantId,
    );
    expect((await rename(widened.body.access_token as string)).status).toBe(200);

    // The earlier access token still works with its own scope; the earlier refresh token works again.
    expect(
      (await mcp(tokens.access_token as string, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status,
    ).toBe(200);
    expect((await rename(tokens.access_token as string)).status).toBe(403);
    const earlier = await refresh(client, tokens.refresh_token as string);
    expect(earlier.status).toBe(200);
    expect(earlier.body.scope).toBe('notes:read notes:write notes:process');
    expect((await refresh(client, widened.body.refresh_token as string)).status).toBe(200);
  });

  it('leaves the grant as it was when the user declines a step-up: the old refresh token works, the old scope holds at /mcp', async () => {
    const client = await register();
    const { tokens, scope } = await refusedForWrite(client);

    const consent = await signIn(authorizeUrl(client, { scope }));
    const declined = await postForm('/oauth/authorize', consentDecision(await consent.text(), 'deny'));
    expect(declined.status).toBe(303);
    const back = new URL(declined.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();

    expect(
      (await mcp(tokens.access_token as string, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status,
    ).toBe(200);
    const refreshed = await refresh(client, tokens.refresh_token as string);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('notes:read notes:process');
    const access = refreshed.body.access_token as string;
    expect((await mcp(access, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(200);
    expect((await rename(access)).status).toBe(403);
    expect(
      (await refresh(client, refreshed.body.refresh_token as string, { scope: 'notes:write' })).body.error,
    ).toBe('invalid_scope');
  });

  it('keeps what the client has when a step-up is allowed with nothing new ticked: a code for the held scopes, on the same grant', async () => {
    const client = await register();
    const { tokens, scope } = await refusedForWrite(client);
    const back = await authorize(client, { scope }, { untick: ['notes:write'] });
    expect(back.searchParams.get('error')).toBeNull();
    const kept = await exchange(client, back.searchParams.get('code') as string);
    expect(kept.status).toBe(200);
    expect(kept.body.scope).toBe('notes:read notes:process');
    const verify = (token: string) => getAccessTokenVerifier().verify(token);
    expect((await verify(kept.body.access_token as string)).grantId).toBe(
      (await verify(tokens.access_token as string)).grantId,
    );
    expect((await rename(kept.body.access_token as string)).status).toBe(403);
    // Nothing was added, and the step-up is over: the earlier refresh token refreshes again.
    const refreshed = await refresh(client, tokens.refresh_token as string);
    expect(refreshed.body.scope).toBe('notes:read notes:process');
  });

  it('shows an error page, and issues no code, when the step-up grant changed after its consent page was drawn', async () => {
    const client = await register();
    const { tokens, scope } = await refusedForWrite(client);
    const consent = await signIn(authorizeUrl(client, { scope }));
    const html = await consent.text();
    expect(heldScopes(html)).toEqual(['notes:read', 'notes:process']);
    // Widened from another tab: this page's "already granted" list is now out of date.
    await authorize(client, { scope }).then(async (back) =>
      exchange(client, back.searchParams.get('code') as string),
    );
    const stale = await postForm('/oauth/authorize', consentDecision(html, 'approve'));
    expect(stale.status).toBe(400);
    expect(stale.headers.get('location')).toBeNull();
    expect(await stale.text()).toContain('changed since this page was shown');
    expect((await refresh(client, tokens.refresh_token as string)).body.scope).toBe(
      'notes:read notes:write notes:process',
    );
  });
});

describe('a failed code exchange spends the code', () => {
  it('spends the code when the code_verifier is missing: the retry with the right verifier fails', async () => {
    const client = await register();
    const code = await codeFor(client);
    const { code_verifier: _left, ...withoutVerifier } = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: VERIFIER,
      resource: `${base}/mcp`,
    };
    const missing = await token(withoutVerifier);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: 'code_verifier is required',
    });
    const retry = await exchange(client, code);
    expect(retry.status).toBe(400);
    expect(retry.body.error).toBe('invalid_grant');
  });

  it('spends a step-up code that fails its exchange, and leaves the grant it would have widened as it was, refreshing again', async () => {
    const client = await register();
    const { tokens, scope } = await refusedForWrite(client);
    const code = await codeFor(client, { scope });
    const wrong = await exchange(client, code, { code_verifier: `${VERIFIER.slice(0, -1)}X` });
    expect(wrong.body.error).toBe('invalid_grant');
    expect((await exchange(client, code)).body.error).toBe('invalid_grant');
    // Not revoked, not widened, and not held back: the user decided, so the grant refreshes as before.
    expect(
      (await mcp(tokens.access_token as string, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status,
    ).toBe(200);
    expect((await refresh(client, tokens.refresh_token as string)).body.scope).toBe(
      'notes:read notes:process',
    );
  });

  it('leaves the grant alone when a failed step-up code that adds nothing is retried', async () => {
    const client = await register();
    const { tokens, scope } = await refusedForWrite(client);
    const back = await authorize(client, { scope }, { untick: ['notes:write'] });
    const code = back.searchParams.get('code') as string;
    expect(code).toBeTruthy();
    expect((await exchange(client, code, { code_verifier: `${VERIFIER.slice(0, -1)}X` })).body.error).toBe(
      'invalid_grant',
    );
    expect((await exchange(client, code)).body.error).toBe('invalid_grant');
    expect(
      (await mcp(tokens.access_token as string, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status,
    ).toBe(200);
    expect((await refresh(client, tokens.refresh_token as string)).status).toBe(200);
  });
});

describe('refresh and revocation', () => {
  it('rotates refresh tokens: a refresh returns new tokens and the old refresh token then fails', async () => {
    const client = await register();
    const first = (await exchange(client, await codeFor(client))).body;
    const second = await refresh(client, first.refresh_token as string);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.access_token).not.toBe(first.access_token);
    expect((await getAccessTokenVerifier().verify(second.body.access_token as string)).accountId).toBe(
      accountId,
    );

    const reuse = await refresh(client, first.refresh_token as string);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // Reuse revokes the family: the newest tokens stop working too.
    expect((await refresh(client, second.body.refresh_token as string)).body.error).toBe('invalid_grant');
    expect(await rejected(second.body.access_token as string)).toMatch(/revoked/);
  });

  it('lets a refresh narrow the scopes but not widen them past the grant, and refuses a refresh by another client', async () => {
    const client = await register();
    const first = (await exchange(client, await codeFor(client))).body;
    const other = await register();
    expect((await refresh(other, first.refresh_token as string)).body.error).toBe('invalid_grant');
    const narrowed = await refresh(client, first.refresh_token as string, { scope: 'notes:read' });
    expect(narrowed.body.scope).toBe('notes:read');
    const widened = await refresh(client, narrowed.body.refresh_token as string, {
      scope: 'notes:read notes:process',
    });
    expect(widened.body.scope).toBe('notes:read notes:process');
    const beyond = await refresh(client, widened.body.refresh_token as string, { scope: 'notes:delete' });
    expect(beyond.body.error).toBe('invalid_scope');
    // A public client may leave client_id out of a refresh.
    const anonymous = await token({
      grant_type: 'refresh_token',
      refresh_token: widened.body.refresh_token as string,
    });
    expect(anonymous.status).toBe(200);
  });

  it('revokes a refresh token (RFC 7009): the refresh and the access tokens of its grant stop working', async () => {
    const client = await register();
    const tokens = (await exchange(client, await codeFor(client))).body;
    const response = await postForm('/oauth/revoke', {
      token: tokens.refresh_token as string,
      token_type_hint: 'refresh_token',
      client_id: client.client_id,
    });
    expect(response.status).toBe(200);
    expect((await refresh(client, tokens.refresh_token as string)).body.error).toBe('invalid_grant');
    expect(await rejected(tokens.access_token as string)).toMatch(/revoked/);
  });

  it('accepts an access token at /oauth/revoke and revokes its grant', async () => {
    const client = await register();
    const tokens = (await exchange(client, await codeFor(client))).body;
    const response = await postForm('/oauth/revoke', {
      token: tokens.access_token as string,
      client_id: client.client_id,
    });
    expect(response.status).toBe(200);
    expect(await rejected(tokens.access_token as string)).toMatch(/revoked/);
  });

  it('answers 200 to unknown tokens and leaves another client’s token alone', async () => {
    expect((await postForm('/oauth/revoke', { token: 'nothing-like-a-token' })).status).toBe(200);
    const client = await register();
    const other = await register();
    const tokens = (await exchange(client, await codeFor(client))).body;
    expect(
      (await postForm('/oauth/revoke', { token: tokens.refresh_token as string, client_id: other.client_id }))
        .status,
    ).toBe(200);
    expect((await refresh(client, tokens.refresh_token as string)).status).toBe(200);
    const missing = await postForm('/oauth/revoke', {});
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('the MCP verifier and API keys', () => {
  it('does not accept the account’s svc_sk_ API key as an access token', async () => {
    expect(await rejected(apiKey)).toMatch(/API keys/);
  });
});

describe('logs', () => {
  it('never contain the API key, codes, tokens or verifiers', async () => {
    const client = await register();
    const code = await codeFor(client);
    const tokens = (await exchange(client, code)).body;
    await refresh(client, tokens.refresh_token as string);
    const output = logs.join('');
    expect(output).toContain('oauthToken');
    for (const secret of [apiKey, code, tokens.access_token, tokens.refresh_token, VERIFIER]) {
      expect(output).not.toContain(secret);
    }
  });
});

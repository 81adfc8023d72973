import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { type ApiResponse, client } from '../support/api.ts';
import { Browser } from '../support/browser.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import type { RunningService } from '../support/local-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';
import { accessTokenFor, authorizationRequest, type FlowTokens } from '../support/oauth-flow.ts';
import { consentDecision, heldScopes, hiddenFields, scopeCheckboxes } from '../support/oauth-forms.ts';

/**
 * Issue 35, over real HTTP against the local runtime: a sign-in gives no more than the credential
 * that signs in holds (the step-up path included), revoking a key ends what it signed in, the
 * account lists its sessions and ends them, and a browser stays signed in at the sign-in page.
 */
let service: InProcessService;
let base: string;
let fullKey: string;
const REST = () => `${base}/v1`;
const WEB_APP = () => ({ clientId: 'notes-web', redirectUri: `${base}/app/callback` });
const MCP_REDIRECT = 'http://127.0.0.1:53682/callback';

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  fullKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  await service?.stop();
});

const api = (credential: string) => client(base, credential);

async function keyWith(
  scopes: string[],
  name = `key with ${scopes.join(' ')}`,
): Promise<{ key: string; id: string }> {
  const made = await api(fullKey)('POST', '/v1/account/keys', { body: { name, scopes } });
  expect(made.status).toBe(201);
  return { key: String(made.body.api_key), id: String(made.body.key_id) };
}

/** A web app session signed in with `apiKey` (no browser: no sign-in session is kept). */
function webAppTokens(apiKey: string): Promise<FlowTokens> {
  return accessTokenFor({ baseUrl: base, apiKey, resource: REST(), client: WEB_APP() });
}

function mcpCall(token: string, name: string, args: Record<string, unknown>): Promise<Response> {
  return postMcpWithToken(`${base}/mcp`, token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
}

async function tokenRequest(
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

function refresh(tokens: FlowTokens, scope?: string) {
  return tokenRequest({
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: tokens.client_id,
    ...(scope ? { scope } : {}),
  });
}

/** An authorization request and the verifier its code must be exchanged with. */
function authorizeRequest(
  clientId: string,
  redirectUri: string,
  scope: string,
  resource = `${base}/mcp`,
): { url: string; exchange: (code: string) => ReturnType<typeof tokenRequest> } {
  const { url, verifier } = authorizationRequest({
    baseUrl: base,
    clientId,
    redirectUri,
    resource,
    state: 'state-35',
    scope,
  });
  return {
    url,
    exchange: (code) =>
      tokenRequest({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource,
      }),
  };
}

function postForm(form: URLSearchParams, cookie?: string): Promise<Response> {
  return fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: form,
    redirect: 'manual',
  });
}

/** The sign-in page's form, filled with `apiKey` (and "stay signed in" as the page ticks it). */
function signInForm(html: string, apiKey: string, remember = true): URLSearchParams {
  const form = new URLSearchParams({ ...hiddenFields(html), api_key: apiKey, action: 'sign_in' });
  if (remember) form.set('remember', '1');
  return form;
}

function codeOf(response: Response): string {
  const location = response.headers.get('location');
  expect(location, `expected a redirect with a code, got ${response.status}`).toBeTruthy();
  const code = new URL(location ?? '').searchParams.get('code');
  expect(code).toBeTruthy();
  return code as string;
}

async function registerClient(): Promise<string> {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Owner MCP client', redirect_uris: [MCP_REDIRECT] }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

type Session = Record<string, unknown> & { session_id: string; kind: string; current: boolean };

async function sessionsSeenBy(credential: string): Promise<Session[]> {
  const listed = await api(credential)<{ sessions: Session[] }>('GET', '/v1/account/sessions');
  expect(listed.status).toBe(200);
  return listed.body.sessions;
}

describe('a sign-in gives no more than the credential that signs in holds', () => {
  it("gives a notes:read key notes:read alone for a client whose owner's grant awaits a step-up", async () => {
    // The owner's MCP client holds read, write and process, and is refused a deletion: a step-up.
    const clientId = await registerClient();
    const owner = await accessTokenFor({
      baseUrl: base,
      apiKey: fullKey,
      client: { clientId, redirectUri: MCP_REDIRECT },
      scope: 'notes:read notes:write notes:process',
    });
    expect(owner.scope).toBe('notes:read notes:write notes:process');
    const refused = await mcpCall(owner.access_token, 'deleteNote', {
      note_id: randomUUID(),
      confirm_note_id: randomUUID(),
    });
    expect(refused.status).toBe(403);

    // Someone holding only a notes:read key authorizes the same client, from another loopback port.
    const readKey = (await keyWith(['notes:read'])).key;
    const attempt = authorizeRequest(
      clientId,
      'http://127.0.0.1:40111/callback',
      'notes:read notes:write notes:process notes:delete',
    );
    const signInPage = await fetch(attempt.url);
    const consent = await postForm(signInForm(await signInPage.text(), readKey));
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(heldScopes(html)).toEqual([]);
    expect(scopeCheckboxes(html).map((box) => box.scope)).toEqual(['notes:read']);

    // Allow with nothing ticked gives nothing (today's main gave the owner's three scopes).
    const nothing = await postForm(consentDecision(html, 'approve', { untick: ['notes:read'] }));
    expect(new URL(nothing.headers.get('location') ?? '').searchParams.get('error')).toBe('access_denied');

    // The owner's full key still gets the step-up it was refused for.
    const ownerAgain = authorizeRequest(
      clientId,
      MCP_REDIRECT,
      'notes:read notes:write notes:process notes:delete',
    );
    const ownerConsent = await postForm(signInForm(await (await fetch(ownerAgain.url)).text(), fullKey));
    const ownerHtml = await ownerConsent.text();
    expect(heldScopes(ownerHtml)).toEqual(['notes:read', 'notes:write', 'notes:process']);
    expect(scopeCheckboxes(ownerHtml).map((box) => box.scope)).toEqual(['notes:delete']);

    // Allowed as shown: notes:read, on a grant of its own.
    const again = authorizeRequest(
      clientId,
      'http://127.0.0.1:40111/callback',
      'notes:read notes:write notes:process',
    );
    const page = await postForm(signInForm(await (await fetch(again.url)).text(), readKey));
    const tokens = await again.exchange(
      codeOf(await postForm(consentDecision(await page.text(), 'approve'))),
    );
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('notes:read');
    const created = await mcpCall(tokens.body.access_token as string, 'createCollection', {
      name: 'Not mine',
    });
    expect(created.status).toBe(403);
    // Nor does a refresh widen it.
    const wider = await refresh(
      { ...tokens.body, client_id: clientId } as unknown as FlowTokens,
      'notes:read notes:write',
    );
    expect(wider.body.error).toBe('invalid_scope');
  });

  it('issues no code when the key that signed in is revoked before Allow', async () => {
    const key = await keyWith(['notes:read', 'notes:write', 'notes:process']);
    const request = authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST());
    const consent = await postForm(signInForm(await (await fetch(request.url)).text(), key.key));
    const html = await consent.text();
    expect((await api(fullKey)('DELETE', `/v1/account/keys/${key.id}`)).status).toBe(204);
    const decision = await postForm(consentDecision(html, 'approve'));
    expect(decision.status).toBe(403);
    expect(decision.headers.get('location')).toBeNull();
    expect(await decision.text()).toContain('was revoked');
  });
});

describe('revoking a key ends what it signed in', () => {
  it("refuses the key's web app and MCP sessions at once: access tokens 401, refresh tokens invalid_grant", async () => {
    const key = await keyWith(['notes:read', 'notes:write', 'notes:process']);
    const web = await webAppTokens(key.key);
    const agent = await accessTokenFor({ baseUrl: base, apiKey: key.key, scope: 'notes:read' });
    expect((await api(web.access_token)('GET', '/v1/notes')).status).toBe(200);
    expect((await postMcpWithToken(`${base}/mcp`, agent.access_token)).status).toBe(200);

    expect((await api(fullKey)('DELETE', `/v1/account/keys/${key.id}`)).status).toBe(204);

    expect((await api(web.access_token)('GET', '/v1/notes')).status).toBe(401);
    expect((await api(web.access_token)('POST', '/v1/collections', { body: { name: 'after' } })).status).toBe(
      401,
    );
    expect((await postMcpWithToken(`${base}/mcp`, agent.access_token)).status).toBe(401);
    expect((await refresh(web)).body.error).toBe('invalid_grant');
    expect((await refresh(agent)).body.error).toBe('invalid_grant');
  });

  it('lets a key revoke itself whatever its scopes, and ends its sessions with it', async () => {
    const key = await keyWith(['notes:read']);
    const session = await webAppTokens(key.key);
    expect((await api(key.key)('DELETE', `/v1/account/keys/${key.id}`)).status).toBe(204);
    expect((await api(key.key)('GET', '/v1/notes')).status).toBe(401);
    expect((await api(session.access_token)('GET', '/v1/notes')).status).toBe(401);
  });

  it('keeps a narrowed key from revoking another key, or ending another session, that may do more', async () => {
    const readKey = (await keyWith(['notes:read'])).key;
    const other = await keyWith(['notes:read', 'notes:write']);
    const revoke = await api(readKey)('DELETE', `/v1/account/keys/${other.id}`);
    expect(revoke.status).toBe(403);
    const wide = await webAppTokens(other.key);
    const wideSession = (await sessionsSeenBy(fullKey)).find(
      (session) => (session.signed_in_with as { key_id?: string }).key_id === other.id,
    );
    expect(wideSession).toBeDefined();
    const end = await api(readKey)('DELETE', `/v1/account/sessions/${wideSession?.session_id}`);
    expect(end.status).toBe(403);
    expect((await api(wide.access_token)('GET', '/v1/notes')).status).toBe(200);
  });
});

describe("the account's sessions", () => {
  it('lists each session with its client, scopes, times and the key behind it, and ends one while the others keep working', async () => {
    const key = await keyWith(['notes:read', 'notes:write', 'notes:process'], 'Laptop browser');
    const first = await webAppTokens(key.key);
    const second = await accessTokenFor({
      baseUrl: base,
      apiKey: key.key,
      scope: 'notes:read',
      clientName: 'Claude Desktop',
    });
    const sessions = await sessionsSeenBy(first.access_token);
    const mine = sessions.find((session) => session.current);
    expect(mine).toMatchObject({
      kind: 'app',
      client_id: 'notes-web',
      client_name: 'Notes web app',
      scopes: ['notes:read', 'notes:write', 'notes:process'],
      signed_in_with: { kind: 'api_key', key_id: key.id, name: 'Laptop browser' },
      current: true,
    });
    expect(Number(mine?.last_used_at)).toBeGreaterThanOrEqual(Number(mine?.created_at));
    const agent = sessions.find((session) => session.client_name === 'Claude Desktop');
    expect(agent).toMatchObject({ kind: 'app', scopes: ['notes:read'], current: false });

    const ended = await api(first.access_token)('DELETE', `/v1/account/sessions/${agent?.session_id}`);
    expect(ended.status).toBe(204);
    expect((await postMcpWithToken(`${base}/mcp`, second.access_token)).status).toBe(401);
    expect((await refresh(second)).body.error).toBe('invalid_grant');
    expect((await api(first.access_token)('GET', '/v1/notes')).status).toBe(200);
    const again = await api(first.access_token)('DELETE', `/v1/account/sessions/${agent?.session_id}`);
    expect(again.status).toBe(404);
    expect((await sessionsSeenBy(fullKey)).some((s) => s.session_id === agent?.session_id)).toBe(false);
  });

  it("shows and ends no other account's sessions", async () => {
    const session = await webAppTokens(fullKey);
    const own = (await sessionsSeenBy(session.access_token)).find((s) => s.current);
    const other = await createAccount(service as unknown as RunningService, 'Someone else');
    const theirs = await sessionsSeenBy(other.api_key);
    expect(theirs.some((s) => s.session_id === own?.session_id)).toBe(false);
    const end = await api(other.api_key)('DELETE', `/v1/account/sessions/${own?.session_id}`);
    expect(end.status).toBe(404);
    expect((await api(session.access_token)('GET', '/v1/notes')).status).toBe(200);
  });

  it('signs out everywhere else: every other session ends, the caller keeps working', async () => {
    const keeper = await webAppTokens(fullKey);
    const other = await webAppTokens(fullKey);
    const agent = await accessTokenFor({ baseUrl: base, apiKey: fullKey, scope: 'notes:read' });
    const ended = await api(keeper.access_token)<{ ended: number; left: number }>(
      'DELETE',
      '/v1/account/sessions',
    );
    expect(ended.status).toBe(200);
    expect(ended.body.ended).toBeGreaterThanOrEqual(2);
    expect(ended.body.left).toBe(0);
    expect((await api(other.access_token)('GET', '/v1/notes')).status).toBe(401);
    expect((await postMcpWithToken(`${base}/mcp`, agent.access_token)).status).toBe(401);
    expect((await api(keeper.access_token)('GET', '/v1/notes')).status).toBe(200);
    expect((await sessionsSeenBy(keeper.access_token)).map((s) => s.current)).toEqual([true]);
  });

  it('keeps session management from MCP clients: their tokens at REST cannot list or end sessions', async () => {
    const agent = await accessTokenFor({
      baseUrl: base,
      apiKey: fullKey,
      resource: REST(),
      scope: 'notes:read notes:write',
    });
    const listed: ApiResponse = await api(agent.access_token)('GET', '/v1/account/sessions');
    expect(listed.status).toBe(403);
  });
});

describe('a browser signed in once', () => {
  function newBrowser(): Browser {
    return new Browser(
      () => [base],
      (url) => url.pathname === '/app/callback',
    );
  }

  /** Signs the browser in for the web app and approves: the web app's tokens. */
  async function signInWebApp(browser: Browser, apiKey: string): Promise<Record<string, string>> {
    const request = authorizeRequest(
      'notes-web',
      `${base}/app/callback`,
      'notes:read notes:write notes:process',
      REST(),
    );
    const signInPage = await browser.open(request.url);
    expect(signInPage.response.status).toBe(200);
    const consent = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: signInForm(await signInPage.response.text(), apiKey).toString(),
    });
    expect(consent.response.status).toBe(200);
    const approved = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: consentDecision(await consent.response.text(), 'approve').toString(),
    });
    const tokens = await request.exchange(codeOf(approved.response));
    expect(tokens.status).toBe(200);
    return tokens.body;
  }

  it('gives the web app its code in a new tab without a key or a page, and asks only "also allow deleting?" for more', async () => {
    const browser = newBrowser();
    await signInWebApp(browser, fullKey);

    const newTab = authorizeRequest(
      'notes-web',
      `${base}/app/callback`,
      'notes:read notes:write notes:process',
      REST(),
    );
    const opened = await browser.open(newTab.url);
    expect(opened.response.status).toBe(302);
    const tokens = await newTab.exchange(codeOf(opened.response));
    expect(tokens.body.scope).toBe('notes:read notes:write notes:process');

    const more = authorizeRequest(
      'notes-web',
      `${base}/app/callback`,
      'notes:read notes:write notes:process notes:delete',
      REST(),
    );
    const asked = await browser.open(more.url);
    expect(asked.response.status).toBe(200);
    const html = await asked.response.text();
    expect(html).not.toContain('name="api_key"');
    expect(heldScopes(html)).toEqual(['notes:read', 'notes:write', 'notes:process']);
    expect(scopeCheckboxes(html)).toEqual([{ scope: 'notes:delete', checked: true }]);
    expect(html).toContain('Sign out and use another key');
    const allowed = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: consentDecision(html, 'approve').toString(),
    });
    const wider = await more.exchange(codeOf(allowed.response));
    expect(wider.body.scope).toBe('notes:read notes:write notes:process notes:delete');
  });

  it('sets the sign-in cookie HttpOnly and SameSite=Lax, scoped to the sign-in pages', async () => {
    const request = authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST());
    const page = await fetch(request.url);
    const browserCookie = page.headers.getSetCookie().find((line) => line.startsWith('notes-browser='));
    expect(browserCookie).toMatch(/HttpOnly/);
    expect(browserCookie).toMatch(/SameSite=Lax/);
    const consent = await postForm(
      signInForm(await page.text(), fullKey),
      (browserCookie ?? '').split(';')[0],
    );
    const signInCookie = consent.headers.getSetCookie().find((line) => line.startsWith('notes-signin='));
    expect(signInCookie).toMatch(/; Path=\/oauth; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
  });

  it('leaves no sign-in behind from a sign-in form posted without the cookie of its page (a forged form)', async () => {
    const request = authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST());
    const page = await fetch(request.url);
    const consent = await postForm(signInForm(await page.text(), fullKey));
    expect(consent.status).toBe(200);
    expect(consent.headers.getSetCookie().some((line) => line.startsWith('notes-signin='))).toBe(false);
  });

  it('asks for the key again after sign-out in the web app, in every tab', async () => {
    const browser = newBrowser();
    const tab = await signInWebApp(browser, fullKey);
    const otherTab = authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST());
    const other = await otherTab.exchange(codeOf((await browser.open(otherTab.url)).response));
    // The web app's "Sign out" revokes its refresh token.
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tab.refresh_token as string, client_id: 'notes-web' }),
    });
    expect(revoked.status).toBe(200);
    expect((await api(other.body.access_token as string)('GET', '/v1/notes')).status).toBe(401);
    const next = await browser.open(
      authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST()).url,
    );
    expect(next.response.status).toBe(200);
    expect(await next.response.text()).toContain('name="api_key"');
  });

  it('asks for the key again once the key it signed in with is revoked, or its session is ended from the list', async () => {
    const key = await keyWith(['notes:read', 'notes:write', 'notes:process']);
    const browser = newBrowser();
    await signInWebApp(browser, key.key);
    expect((await api(fullKey)('DELETE', `/v1/account/keys/${key.id}`)).status).toBe(204);
    const afterRevoke = await browser.open(
      authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST()).url,
    );
    expect(await afterRevoke.response.text()).toContain('name="api_key"');

    const second = newBrowser();
    const tab = await signInWebApp(second, fullKey);
    const sessions = await sessionsSeenBy(tab.access_token as string);
    const browserSession = sessions.find((s) => s.kind === 'browser' && s.current);
    expect(browserSession).toMatchObject({ kind: 'browser', signed_in_with: { kind: 'api_key' } });
    const ended = await api(fullKey)('DELETE', `/v1/account/sessions/${browserSession?.session_id}`);
    expect(ended.status).toBe(204);
    expect((await api(tab.access_token as string)('GET', '/v1/notes')).status).toBe(401);
    const afterEnd = await second.open(
      authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST()).url,
    );
    expect(await afterEnd.response.text()).toContain('name="api_key"');
  });

  it('gives no more than the key it signed in with, through the sign-in session too (web app, forged form, step-up)', async () => {
    const readKey = (await keyWith(['notes:read'])).key;
    const browser = newBrowser();
    const first = authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read', REST());
    const signInPage = await browser.open(first.url);
    const consent = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: signInForm(await signInPage.response.text(), readKey).toString(),
    });
    const allowed = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: consentDecision(await consent.response.text(), 'approve').toString(),
    });
    expect((await first.exchange(codeOf(allowed.response))).body.scope).toBe('notes:read');

    // The web app asks for more: the page keeps notes:read, offers nothing the key lacks.
    const wider = authorizeRequest(
      'notes-web',
      `${base}/app/callback`,
      'notes:read notes:write notes:process',
      REST(),
    );
    const asked = await browser.open(wider.url);
    expect(asked.response.status).toBe(200);
    const html = await asked.response.text();
    expect(html).not.toContain('name="api_key"');
    expect(heldScopes(html)).toEqual(['notes:read']);
    expect(scopeCheckboxes(html)).toEqual([]);
    const forged = consentDecision(html, 'approve');
    forged.append('scope', 'notes:write');
    const refused = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: forged.toString(),
    });
    expect(refused.response.status).toBe(400);

    // An MCP client whose owner's grant awaits a step-up gets no held scope from this browser either.
    const clientId = await registerClient();
    const owner = await accessTokenFor({
      baseUrl: base,
      apiKey: fullKey,
      client: { clientId, redirectUri: MCP_REDIRECT },
      scope: 'notes:read notes:write',
    });
    const deletion = await mcpCall(owner.access_token, 'deleteNote', {
      note_id: randomUUID(),
      confirm_note_id: randomUUID(),
    });
    expect(deletion.status).toBe(403);
    const stepUp = authorizeRequest(
      clientId,
      'http://127.0.0.1:40112/callback',
      'notes:read notes:write notes:delete',
    );
    const stepUpPage = await browser.open(stepUp.url);
    const stepUpHtml = await stepUpPage.response.text();
    expect(heldScopes(stepUpHtml)).toEqual([]);
    expect(scopeCheckboxes(stepUpHtml).map((box) => box.scope)).toEqual(['notes:read']);
  });

  it('signs out on the consent page and shows the sign-in page for the same request', async () => {
    const browser = newBrowser();
    await signInWebApp(browser, fullKey);
    const request = authorizeRequest('notes-web', `${base}/app/callback`, 'notes:read notes:delete', REST());
    const consent = await browser.open(request.url);
    const form = new URLSearchParams(hiddenFields(await consent.response.text()));
    form.set('action', 'sign_out');
    const signedOut = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(signedOut.response.status).toBe(200);
    const html = await signedOut.response.text();
    expect(html).toContain('name="api_key"');
    // The same request goes on with another key.
    const readKey = (await keyWith(['notes:read'])).key;
    const narrowed = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: signInForm(html, readKey).toString(),
    });
    expect(scopeCheckboxes(await narrowed.response.text()).map((box) => box.scope)).toEqual(['notes:read']);
  });
});

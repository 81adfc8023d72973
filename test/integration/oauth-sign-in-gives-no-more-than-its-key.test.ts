import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';
import { consentDecision, hiddenFields, scopeCheckboxes } from '../support/oauth-forms.ts';

/**
 * Review finding 1 of issue 22: a key made with fewer scopes signs in on the local sign-in page, and
 * neither the consent page nor the grant nor a key made with the resulting token holds more than the
 * key did. Real HTTP against the local runtime, the browser played with the server's own forms.
 */
let service: InProcessService;
let base: string;
let fullKey: string;
const ALL = 'notes:read notes:write notes:process notes:delete';
const webApp = () => ({ clientId: 'notes-web', redirectUri: `${base}/app/callback` });

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  fullKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  await service?.stop();
});

async function keyWith(scopes: string[]): Promise<string> {
  const made = await client(base, fullKey)('POST', '/v1/account/keys', {
    body: { name: `key with ${scopes.join(' ')}`, scopes },
  });
  expect(made.status).toBe(201);
  return String(made.body.api_key);
}

/** The local sign-in page for the web app asking for `scope`, submitted with `apiKey`. */
async function signIn(apiKey: string, scope: string): Promise<Response> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'notes-web',
    redirect_uri: `${base}/app/callback`,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${base}/v1`,
    state: 's',
    scope,
  });
  const page = await fetch(`${base}/oauth/authorize?${query}`);
  expect(page.status).toBe(200);
  return postForm(
    new URLSearchParams({ ...hiddenFields(await page.text()), api_key: apiKey, action: 'sign_in' }),
  );
}

function postForm(form: URLSearchParams): Promise<Response> {
  return fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
}

describe('an OAuth sign-in with an API key gives no more than the key holds', () => {
  it('offers a notes:read key only notes:read on the consent page, naming the rest as beyond the key', async () => {
    const consent = await signIn(await keyWith(['notes:read']), ALL);
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(scopeCheckboxes(html).map((box) => box.scope)).toEqual(['notes:read']);
    expect(html).toContain('the API key you signed in with may not');
    for (const scope of ['notes:write', 'notes:process', 'notes:delete']) expect(html).toContain(scope);
  });

  it('refuses a consent form that approves a scope the key does not hold, and issues no code', async () => {
    const consent = await signIn(await keyWith(['notes:read']), ALL);
    const forged = consentDecision(await consent.text(), 'approve');
    forged.append('scope', 'notes:delete');
    const decision = await postForm(forged);
    expect(decision.status).toBe(400);
    expect(decision.headers.get('location')).toBeNull();
    expect(await decision.text()).toContain('does not hold it');
  });

  it('gives a notes:read key a token with notes:read alone, however much is ticked', async () => {
    const tokens = await accessTokenFor({
      baseUrl: base,
      apiKey: await keyWith(['notes:read']),
      resource: `${base}/v1`,
      client: webApp(),
      scope: ALL,
      tick: ['notes:write', 'notes:process', 'notes:delete'],
    });
    expect(tokens.scope).toBe('notes:read');
    const api = client(base, tokens.access_token);
    // Making a key changes the account (notes:write): a read-only session cannot make one at all.
    const made = await api('POST', '/v1/account/keys', { body: { name: 'wider' } });
    expect(made.status).toBe(403);
    const deleted = await api('DELETE', '/v1/notes/00000000-0000-4000-8000-000000000000');
    expect(deleted.status).toBe(403);
  });

  it('lets a session from a read-and-write key make keys holding read and write, never delete', async () => {
    const tokens = await accessTokenFor({
      baseUrl: base,
      apiKey: await keyWith(['notes:read', 'notes:write']),
      resource: `${base}/v1`,
      client: webApp(),
      scope: ALL,
      tick: ['notes:delete'],
    });
    expect(tokens.scope).toBe('notes:read notes:write');
    const api = client(base, tokens.access_token);
    const made = await api('POST', '/v1/account/keys', { body: { name: 'from the session' } });
    expect(made.status).toBe(201);
    expect(made.body.scopes).toEqual(['notes:read', 'notes:write']);
    const wider = await api('POST', '/v1/account/keys', {
      body: { name: 'wider', scopes: ['notes:read', 'notes:delete'] },
    });
    expect(wider.status).toBe(403);
  });

  it('refuses on the sign-in page a key that holds none of what an MCP client asks for, saying why', async () => {
    const page = await signIn(await keyWith(['notes:read']), 'notes:delete');
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain('That API key holds only notes:read, and the application asks for notes:delete');
    expect(scopeCheckboxes(html)).toEqual([]);
  });

  it('still offers every scope to a sign-in with a key made with all of them', async () => {
    const consent = await signIn(fullKey, ALL);
    const boxes = scopeCheckboxes(await consent.text()).map((box) => box.scope);
    expect(boxes).toEqual(['notes:read', 'notes:write', 'notes:process', 'notes:delete']);
  });
});

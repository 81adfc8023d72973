import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * API key management for the account page (issue 15): listApiKeys, createApiKey, revokeApiKey over
 * real HTTP. API keys and the web app's own tokens may manage keys; no other OAuth client may.
 */
let service: InProcessService;
let base: string;
let apiKey: string;
let api: Api;

interface KeyView {
  key_id: string;
  name: string | null;
  prefix: string | null;
  created_at: number;
  revoked_at: number | null;
  scopes: string[];
}
type NewKey = KeyView & { api_key: string };

const ALL_SCOPES = ['notes:read', 'notes:write', 'notes:process', 'notes:delete'];

/** A web app session as it signs in, or (`withDeletion`) once it has asked for permanent deletion too. */
function webAppToken(withDeletion = false) {
  return accessTokenFor({
    baseUrl: base,
    apiKey,
    resource: `${base}/v1`,
    client: { clientId: 'notes-web', redirectUri: `${base}/app/callback` },
    ...(withDeletion ? { scope: 'notes:read notes:write notes:process notes:delete' } : {}),
  });
}

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  api = service.api;
});

afterAll(async () => {
  await service?.stop();
});

describe('API key management', () => {
  it('creates a named key, shows its secret once (not cached), and the new key works', async () => {
    const created = await api<NewKey>('POST', '/v1/account/keys', { body: { name: 'Laptop CLI' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({ name: 'Laptop CLI', revoked_at: null });
    expect(created.body.prefix).toBe(created.body.api_key.slice(0, 11));
    const account = await client(base, created.body.api_key)('GET', '/v1/account');
    expect(account.status).toBe(200);
    expect(account.body.api_key).toMatchObject({ key_id: created.body.key_id });
  });

  it('lists the keys newest first by ID, name and prefix, never a secret', async () => {
    const created = await api<NewKey>('POST', '/v1/account/keys', { body: { name: 'Backup script' } });
    const listed = await api<{ keys: KeyView[] }>('GET', '/v1/account/keys');
    expect(listed.status).toBe(200);
    expect(listed.body.keys[0]).toEqual({
      key_id: created.body.key_id,
      name: 'Backup script',
      prefix: created.body.prefix,
      created_at: created.body.created_at,
      revoked_at: null,
      scopes: ALL_SCOPES,
    });
    // The key the runtime made on first start is listed too.
    expect(listed.body.keys.map((key) => key.prefix)).toContain(apiKey.slice(0, 11));
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(created.body.api_key);
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(/key_hash/);
  });

  it('revokes a key: it is refused at once, stays listed with revoked_at, and revoking again changes nothing', async () => {
    const created = await api<NewKey>('POST', '/v1/account/keys', { body: { name: 'Old' } });
    const holder = client(base, created.body.api_key);
    expect((await holder('GET', '/v1/notes')).status).toBe(200);
    const revoked = await api('DELETE', `/v1/account/keys/${created.body.key_id}`);
    expect(revoked.status).toBe(204);
    expect((await holder('GET', '/v1/notes')).status).toBe(401);
    const listed = await api<{ keys: KeyView[] }>('GET', '/v1/account/keys');
    const entry = listed.body.keys.find((key) => key.key_id === created.body.key_id);
    expect(entry?.revoked_at).toEqual(expect.any(Number));
    expect((await api('DELETE', `/v1/account/keys/${created.body.key_id}`)).status).toBe(204);
    const again = await api<{ keys: KeyView[] }>('GET', '/v1/account/keys');
    expect(again.body.keys.find((key) => key.key_id === created.body.key_id)?.revoked_at).toBe(
      entry?.revoked_at,
    );
  });

  it('answers 404 for a key of another account, and leaves that key working', async () => {
    const other = await createAccount(
      { dataDir: service.dataDir, info: service.runtime.info } as Parameters<typeof createAccount>[0],
      'Other',
    );
    const otherApi = client(base, other.api_key);
    const otherKeys = await otherApi<{ keys: KeyView[] }>('GET', '/v1/account/keys');
    const otherKeyId = otherKeys.body.keys[0]?.key_id;
    expect(otherKeyId).toBeDefined();
    const attempt = await api('DELETE', `/v1/account/keys/${otherKeyId}`);
    expect(attempt.status).toBe(404);
    expect((await otherApi('GET', '/v1/notes')).status).toBe(200);
    const mine = await api<{ keys: KeyView[] }>('GET', '/v1/account/keys');
    expect(mine.body.keys.map((key) => key.key_id)).not.toContain(otherKeyId);
  });

  it.each([
    ['no name', {}, /name/],
    ['an empty name', { name: '   ' }, /name/],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, /name/],
    ['a name with a line break', { name: 'a\nb' }, /name/],
    ['an unknown field', { name: 'ok', scope: 'all' }, /scope/],
    ['an unknown scope', { name: 'ok', scopes: ['notes:everything'] }, /scopes/],
    ['an empty list of scopes', { name: 'ok', scopes: [] }, /scopes/],
    [
      'a scope named twice',
      { name: 'ok', scopes: ['notes:read', 'notes:read'] },
      /^body\.scopes: names notes:read more than once$/,
    ],
  ])('refuses to create a key with %s: 400 with detail', async (_label, body, detail) => {
    const response = await api('POST', '/v1/account/keys', { body });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(detail);
  });

  it('refuses a malformed key ID with 400 and an unknown one with 404', async () => {
    const malformed = await api('DELETE', '/v1/account/keys/svc_sk_not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/key_id/);
    expect((await api('DELETE', '/v1/account/keys/key_0123456789abcdef')).status).toBe(404);
  });
});

describe('who may manage API keys', () => {
  it('lets the web app (notes-web) create a key without the delete permission: the key holds the session’s scopes, no more', async () => {
    const session = await webAppToken();
    expect(session.scope.split(' ')).not.toContain('notes:delete');
    const webApi = client(base, session.access_token);
    expect((await webApi('GET', '/v1/account/keys')).status).toBe(200);
    const created = await webApi<NewKey>('POST', '/v1/account/keys', { body: { name: 'From the app' } });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(session.scope.split(' '));
    const keyApi = client(base, created.body.api_key);
    const account = await keyApi<{ api_key: { scopes: string[] } }>('GET', '/v1/account');
    expect(account.body.api_key.scopes).toEqual(session.scope.split(' '));
    // The key does what its creator could (list notes), and not what it could not (delete for good).
    expect((await keyApi('GET', '/v1/notes')).status).toBe(200);
    const note = await api<{ note_id: string }>('POST', `/v1/notes/${crypto.randomUUID()}/transcription`, {
      body: { title: 'Kept', content_type: 'audio/wav', size_bytes: 1000 },
    });
    const deletion = await keyApi('DELETE', `/v1/notes/${note.body.note_id}`);
    expect(deletion.status).toBe(403);
    expect(deletion.body.detail).toMatch(/notes:delete/);
    expect((await api('GET', `/v1/notes/${note.body.note_id}`)).status).toBe(200);
    // Nor can it make a key that could: asking for more is refused, and its own keys hold no more.
    const wider = await keyApi('POST', '/v1/account/keys', { body: { name: 'Wider', scopes: ALL_SCOPES } });
    expect(wider.status).toBe(403);
    expect(wider.body.detail).toMatch(/notes:delete/);
    const child = await keyApi<NewKey>('POST', '/v1/account/keys', { body: { name: 'Child' } });
    expect(child.body.scopes).not.toContain('notes:delete');
    expect((await webApi('DELETE', `/v1/account/keys/${created.body.key_id}`)).status).toBe(204);
  });

  it('makes a key with fewer scopes when asked: a read-only key reads and cannot change anything', async () => {
    const created = await api<NewKey>('POST', '/v1/account/keys', {
      body: { name: 'Dashboard', scopes: ['notes:read'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(['notes:read']);
    const reader = client(base, created.body.api_key);
    expect((await reader('GET', '/v1/notes')).status).toBe(200);
    expect((await reader('GET', '/v1/account/keys')).status).toBe(200);
    const collection = await reader('POST', '/v1/collections', { body: { name: 'Not allowed' } });
    expect(collection.status).toBe(403);
    expect(collection.body.detail).toMatch(/notes:write/);
    expect((await reader('POST', '/v1/account/keys', { body: { name: 'Another' } })).status).toBe(403);
  });

  it('lets a web app session holding every scope make a key with every scope, and revoke it', async () => {
    const full = await webAppToken(true);
    expect(full.scope.split(' ')).toEqual(ALL_SCOPES);
    const fullApi = client(base, full.access_token);
    const created = await fullApi<NewKey>('POST', '/v1/account/keys', { body: { name: 'From the app' } });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(ALL_SCOPES);
    expect((await fullApi('DELETE', `/v1/account/keys/${created.body.key_id}`)).status).toBe(204);
    expect((await client(base, created.body.api_key)('GET', '/v1/notes')).status).toBe(401);
  });

  it('refuses any other OAuth client, even holding every scope for the REST API', async () => {
    const other = await accessTokenFor({
      baseUrl: base,
      apiKey,
      resource: `${base}/v1`,
      scope: ALL_SCOPES.join(' '),
      tick: ['notes:delete'],
      clientName: 'Some agent',
    });
    expect(other.scope.split(' ')).toEqual(ALL_SCOPES);
    const agent = client(base, other.access_token);
    for (const [method, path, body] of [
      ['GET', '/v1/account/keys', undefined],
      ['POST', '/v1/account/keys', { name: 'Agent key' }],
      ['DELETE', '/v1/account/keys/key_0123456789abcdef', undefined],
    ] as const) {
      const response = await agent(method, path, body ? { body } : {});
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.detail).toMatch(/reserved to API keys and the service's web app/);
    }
    // The same client still reads notes: only key management is withheld.
    expect((await agent('GET', '/v1/notes')).status).toBe(200);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * Review finding 10 of issue 22: revoking a key needs a credential that holds every scope of that
 * key, so a narrowed key (or a session given less) cannot switch off the owner's full key. Real HTTP
 * against the local runtime.
 */
let service: InProcessService;
let base: string;
let fullKey: string;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  fullKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  await service?.stop();
});

async function keyWith(scopes: string[]): Promise<{ key_id: string; api_key: string }> {
  const made = await client(base, fullKey)('POST', '/v1/account/keys', {
    body: { name: `key with ${scopes.join(' ')}`, scopes },
  });
  expect(made.status).toBe(201);
  return { key_id: String(made.body.key_id), api_key: String(made.body.api_key) };
}

async function stillWorks(apiKey: string): Promise<boolean> {
  return (await client(base, apiKey)('GET', '/v1/account')).status === 200;
}

describe('revoking an API key needs every permission the key has', () => {
  it('refuses a read-and-write key revoking a full key with 403, naming what it lacks, and the full key keeps working', async () => {
    const narrow = await keyWith(['notes:read', 'notes:write']);
    const full = await keyWith(['notes:read', 'notes:write', 'notes:process', 'notes:delete']);
    const refused = await client(base, narrow.api_key)('DELETE', `/v1/account/keys/${full.key_id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/notes:process and notes:delete/);
    expect(await stillWorks(full.api_key)).toBe(true);
  });

  it('refuses it for the account’s first key too, which holds every scope without recording them', async () => {
    const narrow = await keyWith(['notes:read', 'notes:write', 'notes:process']);
    const keys = await client(base, fullKey)<{ keys: Array<{ key_id: string; created_at: number }> }>(
      'GET',
      '/v1/account/keys',
    );
    const first = [...keys.body.keys].sort((a, b) => a.created_at - b.created_at)[0];
    const refused = await client(base, narrow.api_key)('DELETE', `/v1/account/keys/${first?.key_id}`);
    expect(refused.status).toBe(403);
    expect(await stillWorks(fullKey)).toBe(true);
  });

  it('lets a narrowed key revoke a key within its own permissions, and itself', async () => {
    const narrow = await keyWith(['notes:read', 'notes:write']);
    const narrower = await keyWith(['notes:write']);
    const api = client(base, narrow.api_key);
    expect((await api('DELETE', `/v1/account/keys/${narrower.key_id}`)).status).toBe(204);
    expect(await stillWorks(narrower.api_key)).toBe(false);
    expect((await api('DELETE', `/v1/account/keys/${narrow.key_id}`)).status).toBe(204);
    expect(await stillWorks(narrow.api_key)).toBe(false);
  });

  it('holds the web app’s session to its own scopes in the same way', async () => {
    const tokens = await accessTokenFor({
      baseUrl: base,
      apiKey: fullKey,
      resource: `${base}/v1`,
      client: { clientId: 'notes-web', redirectUri: `${base}/app/callback` },
    });
    expect(tokens.scope).toBe('notes:read notes:write notes:process');
    const full = await keyWith(['notes:read', 'notes:write', 'notes:process', 'notes:delete']);
    const session = client(base, tokens.access_token);
    const refused = await session('DELETE', `/v1/account/keys/${full.key_id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/notes:delete/);
    const within = await keyWith(['notes:read', 'notes:process']);
    expect((await session('DELETE', `/v1/account/keys/${within.key_id}`)).status).toBe(204);
  });

  it('still answers 404 for a key ID the account does not have', async () => {
    const missing = await client(base, fullKey)('DELETE', '/v1/account/keys/key_0123456789abcdef');
    expect(missing.status).toBe(404);
  });
});

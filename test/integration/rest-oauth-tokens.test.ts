import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';
import { accessTokenFor, type FlowTokens } from '../support/oauth-flow.ts';

/**
 * The REST API as a second protected resource of the service's own OAuth server (issue 15): a token
 * asked for `<base>/v1` works at REST within its scopes, beside API keys; MCP tokens are refused at
 * REST and REST tokens at /mcp. Real HTTP, a real authorization flow (register, PKCE, sign-in,
 * consent, code exchange) against the local runtime.
 */
let service: InProcessService;
let base: string;
let apiKey: string;
let noteId: string;
/** Default consent: notes:read and notes:process. */
let restTokens: FlowTokens;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  noteId = randomUUID();
  const submitted = await service.api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title: 'Budget review', content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect(submitted.status).toBe(202);
  restTokens = await accessTokenFor({ baseUrl: base, apiKey, resource: `${base}/v1` });
});

afterAll(async () => {
  await service?.stop();
});

describe('OAuth access tokens at the REST API', () => {
  it('publishes protected resource metadata for the REST API that names this issuer', async () => {
    const response = await fetch(`${base}/.well-known/oauth-protected-resource/v1`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: `${base}/v1`,
      authorization_servers: [base],
      scopes_supported: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
    });
  });

  it('issues a token for the REST resource with that audience and the scopes the user approved', () => {
    const claims = decodeJwt(restTokens.access_token);
    expect(claims.aud).toBe(`${base}/v1`);
    expect(claims.iss).toBe(base);
    expect(restTokens.scope).toBe('notes:read notes:process');
  });

  it('reads the account and its notes with the token, which names its client and scopes', async () => {
    const api = client(base, restTokens.access_token);
    const account = await api('GET', '/v1/account');
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({
      api_key: null,
      access_token: { client_id: restTokens.client_id, scopes: ['notes:read', 'notes:process'] },
    });
    const notes = await api<{ notes: Array<{ note_id: string }> }>('GET', '/v1/notes');
    expect(notes.status).toBe(200);
    expect(notes.body.notes.map((note) => note.note_id)).toContain(noteId);
  });

  it('answers 403 insufficient_scope, naming the scope to ask for, when the token lacks it', async () => {
    const api = client(base, restTokens.access_token);
    const renamed = await api('PATCH', `/v1/notes/${noteId}`, { body: { title: 'Renamed' } });
    expect(renamed.status).toBe(403);
    expect(renamed.body.detail).toMatch(/updateNote needs notes:write/);
    expect(renamed.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="notes:read notes:process notes:write", resource_metadata="${base}/.well-known/oauth-protected-resource/v1"`,
    );
    const deleted = await api('DELETE', `/v1/notes/${noteId}`);
    expect(deleted.status).toBe(403);
    // Nothing changed.
    const note = await service.api<{ title: string }>('GET', `/v1/notes/${noteId}`);
    expect(note.body.title).toBe('Budget review');
  });

  it('allows what the user approved beyond the default: notes:write renames', async () => {
    const writer = await accessTokenFor({
      baseUrl: base,
      apiKey,
      resource: `${base}/v1`,
      scope: 'notes:read notes:write',
    });
    const renamed = await client(base, writer.access_token)('PATCH', `/v1/notes/${noteId}`, {
      body: { title: 'Budget review (final)' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe('Budget review (final)');
  });

  it('refuses a token issued for the MCP server with 401 invalid_token', async () => {
    const mcpTokens = await accessTokenFor({ baseUrl: base, apiKey });
    const response = await client(base, mcpTokens.access_token)('GET', '/v1/notes');
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/not for this resource/);
    expect(response.headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer error="invalid_token", .*resource_metadata="${base}/\\.well-known/oauth-protected-resource/v1"$`,
      ),
    );
  });

  it('refuses a REST token at /mcp with 401 and the MCP resource metadata', async () => {
    const response = await postMcpWithToken(`${base}/mcp`, restTokens.access_token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(((await response.json()) as { detail: string }).detail).toMatch(/not for this resource/);
  });

  it("keeps another account's notes out of reach: its token gets 404 for this account's note", async () => {
    const other = await createAccount(
      { dataDir: service.dataDir, info: service.runtime.info } as Parameters<typeof createAccount>[0],
      'Other',
    );
    const otherTokens = await accessTokenFor({
      baseUrl: base,
      apiKey: other.api_key,
      resource: `${base}/v1`,
    });
    const response = await client(base, otherTokens.access_token)('GET', `/v1/notes/${noteId}`);
    expect(response.status).toBe(404);
  });

  it('refuses a token once the public client revoked its refresh token (sign-out)', async () => {
    const tokens = await accessTokenFor({ baseUrl: base, apiKey, resource: `${base}/v1` });
    const api = client(base, tokens.access_token);
    expect((await api('GET', '/v1/notes')).status).toBe(200);
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: tokens.client_id }),
    });
    expect(revoked.status).toBe(200);
    const after = await api('GET', '/v1/notes');
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/revoked/);
  });

  it('still gives API keys full access', async () => {
    const renamed = await service.api('PATCH', `/v1/notes/${noteId}`, { body: { title: 'By key' } });
    expect(renamed.status).toBe(200);
  });
});

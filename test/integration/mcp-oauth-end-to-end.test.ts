import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { HeadlessOAuthProvider, loggingFetch, type RequestLog } from '../support/headless-oauth.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';

/**
 * The "must be shown": the official SDK client, with its OAuth support, against the local
 * runtime's own /mcp and authorization server (nothing stubbed). The user's browser is played
 * headlessly by the provider's redirectToAuthorization: it opens the authorization URL, signs in
 * with the account's API key (the local upstream), approves, and keeps the code from the redirect
 * back to the loopback redirect URI, where no server needs to listen.
 */
let service: InProcessService;
let base: string;
let mcpUrl: URL;
let apiKey: string;
let noteId: string;
const clients: Client[] = [];

function transportFor(provider: HeadlessOAuthProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(mcpUrl, {
    authProvider: provider,
    fetch: loggingFetch(provider.log),
  });
}

/**
 * Connects as the SDK's simpleOAuthClient example does: the first attempt ends in UnauthorizedError
 * once the authorization is under way; finishAuth exchanges the code; a new transport connects.
 */
async function connectWithOAuth(
  signInKey: string,
): Promise<{ client: Client; provider: HeadlessOAuthProvider; transport: StreamableHTTPClientTransport }> {
  const provider = new HeadlessOAuthProvider({ base, signInKey });
  const client = new Client({ name: 'mcp-oauth-end-to-end', version: '1.0.0' });
  clients.push(client);
  const first = transportFor(provider);
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  await first.finishAuth(provider.takeCode());
  const transport = transportFor(provider);
  await client.connect(transport);
  return { client, provider, transport };
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls a tool that needs more scope than granted: the SDK steps up, and the call is made again. */
async function callWithStepUp(
  client: Client,
  transport: StreamableHTTPClientTransport,
  provider: HeadlessOAuthProvider,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  await expect(call(client, name, args)).rejects.toBeInstanceOf(UnauthorizedError);
  await transport.finishAuth(provider.takeCode());
  return call(client, name, args);
}

/** `lines` appear in `log` in this order (other lines may come between). */
function expectInOrder(log: RequestLog, lines: string[]): void {
  let at = 0;
  for (const line of lines) {
    const found = log.indexOf(line, at);
    expect(found, `${line} after position ${at} in\n${log.join('\n')}`).toBeGreaterThanOrEqual(0);
    at = found + 1;
  }
}

function tokenRequest(fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

function rawMcp(token: string, body?: unknown) {
  return postMcpWithToken(String(mcpUrl), token, body);
}

async function createNote(title: string): Promise<string> {
  const id = randomUUID();
  const submitted = await service.api('POST', `/v1/notes/${id}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect(submitted.status).toBe(202);
  return id;
}

beforeAll(async () => {
  // No workers: the notes only need to exist (submitted, not uploaded) for these tools.
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  mcpUrl = new URL(`${base}/mcp`);
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  noteId = await createNote('Quarterly planning');
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await service?.stop();
});

describe('the official MCP SDK client, with its OAuth support, against the local runtime', () => {
  let client: Client;
  let provider: HeadlessOAuthProvider;
  let transport: StreamableHTTPClientTransport;

  it('connects: a 401 leads to discovery, registration, authorization with consent and the token', async () => {
    ({ client, provider, transport } = await connectWithOAuth(apiKey));
    expectInOrder(provider.log, [
      'POST /mcp -> 401',
      'GET /.well-known/oauth-protected-resource/mcp -> 200',
      'GET /.well-known/oauth-authorization-server -> 200',
      'POST /oauth/register -> 201',
      'browser: GET /oauth/authorize -> 200',
      'browser: POST /oauth/authorize -> 200',
      'browser: POST /oauth/authorize -> 303',
      'POST /oauth/token -> 200',
      'POST /mcp -> 200',
    ]);
    // The default grant, as the 401 asked for it.
    expect(provider.consents).toEqual([{ held: [], offered: ['notes:read', 'notes:process'] }]);
    expect(provider.tokens()).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i) });
    expect(provider.tokens()?.scope).toBe('notes:read notes:process');
    expect(client.getServerVersion()?.name).toBe('notes');
  });

  it('lists the eighteen tools, without submitTranscription', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(19);
    expect(tools.map((tool) => tool.name)).not.toContain('submitTranscription');
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['listNotes', 'getNote', 'deleteNote']),
    );
  });

  it('reads: the account, its notes and a note', async () => {
    const account = await call(client, 'getCurrentAccount');
    expect(account.structuredContent).toMatchObject({
      access_token: { scopes: ['notes:read', 'notes:process'] },
    });
    const list = await call(client, 'listNotes', { limit: 10 });
    expect(
      (list.structuredContent as { notes: { note_id: string }[] }).notes.map((n) => n.note_id),
    ).toContain(noteId);
    const note = await call(client, 'getNote', { note_id: noteId });
    expect(note.isError).toBeFalsy();
    expect(note.structuredContent).toMatchObject({ note_id: noteId, title: 'Quarterly planning' });
  });

  it('writes after a step-up: 403 insufficient_scope, the refresh answers invalid_grant, consent adds notes:write to the grant', async () => {
    const before = provider.tokens() as OAuthTokens;
    provider.log.length = 0;
    const renamed = await callWithStepUp(client, transport, provider, 'updateNote', {
      note_id: noteId,
      title: 'Quarterly planning (final)',
    });
    expect(renamed.isError).toBeFalsy();
    expect(renamed.structuredContent).toMatchObject({ note_id: noteId, title: 'Quarterly planning (final)' });
    expectInOrder(provider.log, [
      'POST /mcp -> 403',
      // The SDK refreshes first; the grant knows more scope was asked for, so: authorize again.
      'POST /oauth/token -> 400',
      'browser: GET /oauth/authorize -> 200',
      'browser: POST /oauth/authorize -> 303',
      'POST /oauth/token -> 200',
      'POST /mcp -> 200',
    ]);
    // The consent page showed what the grant held and offered only what is new.
    expect(provider.consents.at(-1)).toEqual({
      held: ['notes:read', 'notes:process'],
      offered: ['notes:write'],
    });
    expect(provider.tokens()?.scope).toBe('notes:read notes:write notes:process');
    expect((await service.api('GET', `/v1/notes/${noteId}`)).body.title).toBe('Quarterly planning (final)');

    // The approval widened the grant the client had: its earlier access token still works, and its
    // earlier refresh token refreshes again, now to the widened grant.
    expect((await rawMcp(before.access_token)).status).toBe(200);
    const earlier = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: before.refresh_token as string,
    });
    expect(earlier.status).toBe(200);
    expect(((await earlier.json()) as { scope: string }).scope).toBe('notes:read notes:write notes:process');
  });

  it('deletes a note after a second step-up (notes:delete), only when confirm_note_id repeats its ID', async () => {
    const doomed = await createNote('To be deleted');
    // Permanent deletion is never ticked for the user: here the user ticks it.
    provider.tick = ['notes:delete'];
    const mismatch = await callWithStepUp(client, transport, provider, 'deleteNote', {
      note_id: doomed,
      confirm_note_id: noteId,
    });
    expect(provider.consents).toHaveLength(3);
    expect(provider.consents.at(-1)).toEqual({
      held: ['notes:read', 'notes:write', 'notes:process'],
      offered: ['notes:delete'],
    });
    expect(provider.tokens()?.scope).toBe('notes:read notes:write notes:process notes:delete');
    expect(mismatch.isError).toBe(true);
    expect(JSON.stringify(mismatch.content)).toMatch(/nothing was deleted/);
    expect((await service.api('GET', `/v1/notes/${doomed}`)).status).toBe(200);

    const deleted = await call(client, 'deleteNote', { note_id: doomed, confirm_note_id: doomed });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toEqual({ note_id: doomed, deleted: 'note' });
    expect((await service.api('GET', `/v1/notes/${doomed}`)).status).toBe(404);
  });

  it('refreshes: new tokens that work, and the old refresh token then fails with invalid_grant', async () => {
    const old = provider.tokens() as OAuthTokens;
    provider.log.length = 0;
    expect(await auth(provider, { serverUrl: mcpUrl, fetchFn: loggingFetch(provider.log) })).toBe(
      'AUTHORIZED',
    );
    expect(provider.log.filter((line) => line.startsWith('browser:'))).toEqual([]);
    expect(provider.log).toContain('POST /oauth/token -> 200');
    const fresh = provider.tokens() as OAuthTokens;
    expect(fresh.refresh_token).not.toBe(old.refresh_token);
    expect(fresh.access_token).not.toBe(old.access_token);
    expect(fresh.scope).toBe('notes:read notes:write notes:process notes:delete');
    expect((await call(client, 'getNote', { note_id: noteId })).isError).toBeFalsy();

    const reuse = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: old.refresh_token as string,
    });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
    // Reuse of a rotated refresh token ends the whole family: the newest tokens too.
    expect((await rawMcp(fresh.access_token)).status).toBe(401);
  });
});

describe('a step-up the user allows with nothing new ticked, through the SDK client', () => {
  it('keeps the rights the client had: the tool still answers 403, and reads and refreshes go on without a browser', async () => {
    const { client, provider, transport } = await connectWithOAuth(apiKey);
    provider.untick = ['notes:write'];
    provider.log.length = 0;
    await expect(
      call(client, 'updateNote', { note_id: noteId, title: 'Not renamed' }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(provider.takeCode());
    expect(provider.consents.at(-1)).toEqual({
      held: ['notes:read', 'notes:process'],
      offered: ['notes:write'],
    });
    expect(provider.tokens()?.scope).toBe('notes:read notes:process');
    // The SDK tries the call once more and stops at the same 403, with its tokens kept.
    await expect(call(client, 'updateNote', { note_id: noteId, title: 'Not renamed' })).rejects.toThrow(
      /403/,
    );
    expect(provider.tokens()?.refresh_token).toEqual(expect.any(String));
    expect((await call(client, 'getNote', { note_id: noteId })).isError).toBeFalsy();
    expect((await service.api('GET', `/v1/notes/${noteId}`)).body.title).not.toBe('Not renamed');

    provider.log.length = 0;
    expect(await auth(provider, { serverUrl: mcpUrl, fetchFn: loggingFetch(provider.log) })).toBe(
      'AUTHORIZED',
    );
    expect(provider.log.filter((line) => line.startsWith('browser:'))).toEqual([]);
    expect(provider.tokens()?.scope).toBe('notes:read notes:process');
    expect((await call(client, 'getNote', { note_id: noteId })).isError).toBeFalsy();
  });
});

describe('tokens and keys where they do not belong', () => {
  it('REST refuses the MCP access token', async () => {
    const { provider } = await connectWithOAuth(apiKey);
    const token = provider.tokens()?.access_token as string;
    expect((await rawMcp(token)).status).toBe(200);
    const rest = await service.api('GET', '/v1/account', { key: token });
    expect(rest.status).toBe(401);
  });

  it('MCP refuses an svc_sk_ API key with 401 and the protected resource metadata', async () => {
    const response = await rawMcp(apiKey);
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token", /);
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it("a second account's grant cannot read the first account's note (a 404 tool error)", async () => {
    const other = await createAccount(
      { dataDir: service.dataDir, info: service.runtime.info } as Parameters<typeof createAccount>[0],
      'mcp-oauth-other',
    );
    const { client, provider } = await connectWithOAuth(other.api_key);
    expect(provider.consents).toEqual([{ held: [], offered: ['notes:read', 'notes:process'] }]);
    const account = await call(client, 'getCurrentAccount');
    expect(account.structuredContent).toMatchObject({ account_id: other.account_id });
    const note = await call(client, 'getNote', { note_id: noteId });
    expect(note.isError).toBe(true);
    expect(note.structuredContent).toMatchObject({ status_code: 404 });
    expect((await call(client, 'listNotes')).structuredContent).toMatchObject({ notes: [] });
  });
});

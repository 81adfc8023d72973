import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  Client,
  type FetchLike,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { MCP_TOOL_NAMES } from '../../src/mcp/tools.ts';
import { HeadlessOAuthProvider, loggingFetch } from '../support/headless-oauth.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';
import { ensureLambdaNode } from '../support/node22.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * MCP revision 2026-07-28 (no initialize, no session: the version, client info and capabilities in
 * each request's `_meta`) beside 2025-11-25, on the local runtime's /mcp, with tokens from its own
 * OAuth flow. Clients that speak the new revision: the official SDK v2 client pinned to it, and
 * `@ai-sdk/mcp` (which needs Node 22: it runs on the registry's Node 22, as the conformance suite).
 */
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-2026-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let service: InProcessService;
let base: string;
let mcpUrl: URL;
let apiKey: string;
let token: string;
const clients: Client[] = [];

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  mcpUrl = new URL(`${base}/mcp`);
  const { readFile } = await import('node:fs/promises');
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  token = (await accessTokenFor({ baseUrl: base, apiKey })).access_token;
  const submitted = await service.api('POST', `/v1/notes/${randomUUID()}/transcription`, {
    body: { title: 'Roadmap review', content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect(submitted.status).toBe(202);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await service?.stop();
});

/** A 2026-07-28 request as the transport binding has it: `_meta` in the body, the headers beside it. */
function modernRequest(method: string, params: Record<string, unknown> = {}, version = MODERN) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return postMcpWithToken(
    String(mcpUrl),
    token,
    {
      jsonrpc: '2.0',
      id: 7,
      method,
      params: { ...params, _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version } },
    },
    { 'mcp-protocol-version': version, 'mcp-method': method, ...name },
  );
}

/** The JSON-RPC methods a client posted to /mcp, in order, with the protocol version header. */
function recordingMethods(sent: string[], inner: FetchLike): FetchLike {
  return async (url, init) => {
    if (new URL(String(url)).pathname === '/mcp' && typeof init?.body === 'string') {
      const method = (JSON.parse(init.body) as { method?: string }).method;
      sent.push(`${method} ${new Headers(init.headers).get('mcp-protocol-version')}`);
    }
    return inner(url, init);
  };
}

describe('the official SDK v2 client pinned to 2026-07-28, through the OAuth flow', () => {
  it('authorizes, discovers the revision, lists and calls tools without initialize', async () => {
    const provider = new HeadlessOAuthProvider({ base, signInKey: apiKey });
    const sent: string[] = [];
    const transport = () =>
      new StreamableHTTPClientTransport(mcpUrl, {
        authProvider: provider,
        fetch: recordingMethods(sent, loggingFetch(provider.log)),
      });
    const client = new Client(
      { name: 'sdk-v2-pinned', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    clients.push(client);
    const first = transport();
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    // The callback's parameters as the redirect brought them: the SDK checks iss (RFC 9207).
    provider.takeCode();
    await first.finishAuth(new URL(provider.redirects.at(-1) ?? '').searchParams);
    await client.connect(transport());

    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
    const account = await client.callTool({ name: 'getCurrentAccount', arguments: {} });
    expect(account.isError).toBeFalsy();
    expect(account.structuredContent).toMatchObject({
      access_token: { scopes: ['notes:read', 'notes:process'] },
    });
    const notes = await client.callTool({ name: 'listNotes', arguments: {} });
    expect(notes.structuredContent).toMatchObject({ notes: [{ title: 'Roadmap review' }] });

    // Every request after the token named the revision; none was an initialize.
    const authorized = sent.slice(sent.lastIndexOf(`server/discover ${MODERN}`));
    expect(authorized).toEqual([
      `server/discover ${MODERN}`,
      `tools/list ${MODERN}`,
      `tools/call ${MODERN}`,
      `tools/call ${MODERN}`,
    ]);
    expect(sent.some((line) => line.startsWith('initialize'))).toBe(false);
  });
});

describe('@ai-sdk/mcp on Node 22', () => {
  it('connects in 2026-07-28 without falling back to initialize, lists and calls a tool', async () => {
    const node = await ensureLambdaNode();
    const { stdout } = await promisify(execFile)(
      node,
      [
        join(REPO_ROOT, 'test', 'support', 'ai-sdk-mcp-client.mjs'),
        String(mcpUrl),
        token,
        'getCurrentAccount',
      ],
      { timeout: 60_000 },
    );
    const run = JSON.parse(stdout) as {
      sent: { httpMethod: string; method: string | null; protocolVersion: string | null; status: number }[];
      tools: string[];
      result: { isError?: boolean; structuredContent?: unknown; resultType?: string };
    };
    expect(run.sent).toEqual([
      { httpMethod: 'POST', method: 'server/discover', protocolVersion: MODERN, status: 200 },
      { httpMethod: 'POST', method: 'tools/list', protocolVersion: MODERN, status: 200 },
      { httpMethod: 'POST', method: 'tools/call', protocolVersion: MODERN, status: 200 },
    ]);
    expect(run.tools).toEqual([...MCP_TOOL_NAMES]);
    expect(run.result).toMatchObject({ isError: false, resultType: 'complete' });
    expect(run.result.structuredContent).toMatchObject({ access_token: { scopes: expect.any(Array) } });
  });
});

describe('2026-07-28 on the wire', () => {
  it('answers server/discover with the revision, tools capability, instructions and cache hints', async () => {
    const response = await modernRequest('server/discover');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { result } = (await response.json()) as { result: Record<string, unknown> };
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false } },
      instructions: expect.stringContaining('getCurrentAccount'),
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'notes', version: '1.0.0' } },
    });
  });

  it('gives tools/list resultType, ttlMs and cacheScope (the list is the same for every account)', async () => {
    const response = await modernRequest('tools/list');
    const { result } = (await response.json()) as { result: Record<string, unknown> & { tools: unknown[] } };
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(result.tools).toHaveLength(MCP_TOOL_NAMES.length);
  });

  it('gives a tool result resultType complete, and a tool error too', async () => {
    const ok = (await (
      await modernRequest('tools/call', { name: 'listCollections', arguments: {} })
    ).json()) as {
      result: Record<string, unknown>;
    };
    expect(ok.result).toMatchObject({ resultType: 'complete', structuredContent: { collections: [] } });
    const missing = (await (
      await modernRequest('tools/call', { name: 'getNote', arguments: { note_id: randomUUID() } })
    ).json()) as { result: Record<string, unknown> };
    expect(missing.result).toMatchObject({ resultType: 'complete', isError: true });
  });

  it('answers a revision it does not speak with 400 and -32022 listing the revisions it does', async () => {
    const response = await modernRequest('tools/list', {}, '2099-01-01');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32022,
        message: expect.stringContaining('2099-01-01'),
        data: {
          requested: '2099-01-01',
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'],
        },
      },
    });
  });

  it('refuses a tools/call whose Mcp-Name header is missing or names another tool: 400', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'listNotes', arguments: {}, _meta: META },
    };
    const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' };
    for (const extra of [{}, { 'mcp-name': 'deleteNote' }] as Record<string, string>[]) {
      const response = await postMcpWithToken(String(mcpUrl), token, body, { ...headers, ...extra });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32020);
    }
  });

  it('keeps the token and scope checks in front: 401 without a token, 403 insufficient_scope for a write', async () => {
    const anonymous = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    const write = await modernRequest('tools/call', { name: 'createCollection', arguments: { name: 'X' } });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope", scope="[^"]*notes:write/,
    );
  });

  it('still serves a 2025-11-25 client with initialize, and its results carry no 2026 fields', async () => {
    const initialize = await postMcpWithToken(String(mcpUrl), token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'legacy-client', version: '1.0.0' },
      },
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('mcp-session-id')).toBeNull();
    const { result } = (await initialize.json()) as { result: Record<string, unknown> };
    expect(result).toMatchObject({
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: false } },
    });
    expect(result).not.toHaveProperty('resultType');
    const list = (await (
      await postMcpWithToken(String(mcpUrl), token, undefined, { 'mcp-protocol-version': '2025-11-25' })
    ).json()) as { result: Record<string, unknown> };
    expect(list.result).not.toHaveProperty('resultType');
    expect(list.result).not.toHaveProperty('ttlMs');
  });
});

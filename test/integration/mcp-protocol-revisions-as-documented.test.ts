import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../src/mcp/tools.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The "Protocol revisions" table of docs/mcp.md, row by row, on the local runtime's /mcp with a token
 * from its OAuth flow: how each revision starts, negotiates its version, which headers it checks,
 * what its results carry, and what runs in front of both. (The unsupported 2026 version's -32022, the
 * Mcp-Name check and the 401/403 in front are in mcp-revision-2026-07-28.test.ts.)
 */
const MODERN = '2026-07-28';
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'protocol-table', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let service: InProcessService;
let mcpUrl: string;
let token: string;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  const base = service.runtime.apiUrl;
  mcpUrl = `${base}/mcp`;
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  token = (await accessTokenFor({ baseUrl: base, apiKey })).access_token;
});

afterAll(async () => {
  await service?.stop();
});

function initialize(protocolVersion: string, headers: Record<string, string> = {}) {
  return postMcpWithToken(
    mcpUrl,
    token,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy', version: '1.0.0' } },
    },
    headers,
  );
}

/** A 2026-07-28 request; `headers` replaces the ones the binding asks for (an empty value drops one). */
function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const wanted: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...name,
    ...headers,
  };
  return fetch(mcpUrl, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries({
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...wanted,
      }).filter(([, value]) => value !== ''),
    ),
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: META } }),
  });
}

async function errorOf(response: Response): Promise<{ status: number; code: unknown }> {
  const body = (await response.json()) as { error?: { code?: unknown } };
  return { status: response.status, code: body.error?.code };
}

/** JSON, never a stream, and no session: what every answer of either revision is. */
function expectJsonWithoutSession(response: Response): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('mcp-session-id')).toBeNull();
}

describe('the 2025 revisions, as docs/mcp.md says', () => {
  it('answers initialize with the revision the client asked for when it serves it, as JSON without a session', async () => {
    for (const version of LEGACY_VERSIONS) {
      const response = await initialize(version);
      expect(response.status, version).toBe(200);
      expectJsonWithoutSession(response);
      const { result } = (await response.json()) as { result: Record<string, unknown> };
      expect(result, version).toMatchObject({
        protocolVersion: version,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'notes' },
      });
      expect(result, version).not.toHaveProperty('resultType');
    }
  });

  it('answers an initialize naming a revision it does not serve with 200 and 2025-11-25, for the client to accept or leave', async () => {
    const response = await initialize('2099-01-01');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: Record<string, unknown> }).result).toMatchObject({
      protocolVersion: '2025-11-25',
    });
  });

  it('takes notifications/initialized with 202, then serves requests with or without the MCP-Protocol-Version header', async () => {
    const initialized = await postMcpWithToken(mcpUrl, token, {
      jsonrpc: '2.0',
      method: 'notifications/initialized',
    });
    expect(initialized.status).toBe(202);
    for (const headers of [{ 'mcp-protocol-version': '2025-11-25' }, {}] as Record<string, string>[]) {
      const response = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      });
      expect(response.status).toBe(200);
      expectJsonWithoutSession(response);
      const { result } = (await response.json()) as { result: { tools: { name: string }[] } };
      expect(result.tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
    }
  });

  it('answers 400 to a request whose MCP-Protocol-Version header names a revision it does not serve', async () => {
    const response = await postMcpWithToken(mcpUrl, token, undefined, {
      'mcp-protocol-version': '1999-01-01',
    });
    expect(await errorOf(response)).toEqual({ status: 400, code: -32000 });
  });
});

describe('2026-07-28, as docs/mcp.md says', () => {
  it('answers 400 -32020 when the MCP-Protocol-Version header is missing or disagrees with the _meta version', async () => {
    for (const version of ['', '2025-11-25']) {
      const response = await modern('tools/list', {}, { 'mcp-protocol-version': version });
      expect(await errorOf(response), version || 'no header').toEqual({ status: 400, code: -32020 });
    }
  });

  it('answers 400 -32020 when Mcp-Method is missing or names another method than the body', async () => {
    for (const method of ['', 'server/discover']) {
      const response = await modern('tools/list', {}, { 'mcp-method': method });
      expect(await errorOf(response), method || 'no header').toEqual({ status: 400, code: -32020 });
    }
  });

  it('serves a request without the _meta version as 2025 unless its header names 2026-07-28 (400 -32602), and refuses initialize with that header (400 -32020)', async () => {
    const withoutMeta = await postMcpWithToken(mcpUrl, token, undefined, {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/list',
    });
    expect(await errorOf(withoutMeta)).toEqual({ status: 400, code: -32602 });
    expect(await errorOf(await initialize(MODERN, { 'mcp-protocol-version': MODERN }))).toEqual({
      status: 400,
      code: -32020,
    });
  });

  it('gives every result resultType complete and the server info in _meta, as JSON without a session', async () => {
    const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 'notes', version: '1.0.0' } };
    for (const [method, params] of [
      ['server/discover', {}],
      ['tools/list', {}],
      ['tools/call', { name: 'listCollections', arguments: {} }],
    ] as const) {
      const response = await modern(method, params);
      expect(response.status, method).toBe(200);
      expectJsonWithoutSession(response);
      const { result } = (await response.json()) as { result: Record<string, unknown> };
      expect(result, method).toMatchObject({ resultType: 'complete', _meta: serverInfo });
    }
  });

  it('lists the same tools as 2025, each with inputSchema, outputSchema and annotations', async () => {
    const { result } = (await (await modern('tools/list')).json()) as {
      result: { tools: Record<string, unknown>[] };
    };
    expect(result.tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
    for (const tool of result.tools) {
      expect(Object.keys(tool), String(tool.name)).toEqual(
        expect.arrayContaining(['inputSchema', 'outputSchema', 'annotations']),
      );
    }
  });
});

describe('in front of both revisions', () => {
  it('answers a foreign Origin 403, an Accept without JSON 406 and an oversized body 413, in 2026-07-28 as in 2025', async () => {
    const legacy = (headers: Record<string, string>, params: Record<string, unknown> = {}) =>
      postMcpWithToken(mcpUrl, token, { jsonrpc: '2.0', id: 2, method: 'tools/list', params }, headers);
    const oversized = { padding: 'x'.repeat(70 * 1024) };
    for (const [era, send] of [
      ['2025', legacy],
      ['2026-07-28', (headers: Record<string, string>, params = {}) => modern('tools/list', params, headers)],
    ] as const) {
      expect((await send({ origin: 'http://evil.example' })).status, era).toBe(403);
      expect((await send({ accept: 'text/event-stream' })).status, era).toBe(406);
      expect((await send({}, oversized)).status, era).toBe(413);
    }
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { McpScope } from '../../src/domain/scopes.ts';
import { toApiGatewayResult, toWebRequest } from '../../src/mcp/api-gateway.ts';
import { createMcpHandler } from '../../src/mcp/handler.ts';
import { mcpLambdaHandler } from '../../src/mcp/lambda.ts';
import { MCP_TOOL_NAMES } from '../../src/mcp/tools.ts';
import {
  type AccessGrant,
  type AccessTokenVerifier,
  InvalidAccessTokenError,
} from '../../src/ports/access-tokens.ts';
import type { AskServices } from '../../src/wiring/ask-services.ts';
import type { Services } from '../../src/wiring/services.ts';

const PUBLIC_URL = 'https://notes.example.com';
const METADATA = `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`;

/** Tokens it minted itself; a stand-in for the OAuth server's verifier. */
class MintingVerifier implements AccessTokenVerifier {
  readonly seen: string[] = [];
  private readonly grants = new Map<string, AccessGrant>();

  mint(scopes: McpScope[], accountId: string = randomUUID()): string {
    const token = `test_${randomBytes(16).toString('hex')}`;
    this.grants.set(token, { accountId, clientId: 'unit-client', scopes, grantId: `grant-${token}` });
    return token;
  }

  async verify(token: string): Promise<AccessGrant> {
    this.seen.push(token);
    const grant = this.grants.get(token);
    if (!grant) throw new InvalidAccessTokenError('unknown token');
    return grant;
  }
}

function setup(recordStepUp?: (grant: AccessGrant, scopes: McpScope[]) => Promise<void>) {
  const verifier = new MintingVerifier();
  const handler = createMcpHandler({
    ...(recordStepUp ? { recordStepUp } : {}),
    verifier,
    publicUrl: `${PUBLIC_URL}/`,
    allowedOrigins: [PUBLIC_URL, 'http://localhost:6274'],
    // The HTTP layer decides before any tool runs: storage is never reached in these tests.
    services: () => {
      throw new Error('services must not be created');
    },
    askServices: () => ({}) as AskServices,
  });
  return { verifier, handler };
}

function rpc(body: unknown, headers: Record<string, string> = {}, method = 'POST'): Request {
  return new Request(`${PUBLIC_URL}/mcp`, {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
}

const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const callTool = (name: string, args: Record<string, unknown>, id = 2) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('the MCP HTTP endpoint', () => {
  it('answers 401 with the resource metadata and default scopes when the token is missing', async () => {
    const { handler } = setup();
    const response = await handler(rpc(toolsList));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${METADATA}", scope="notes:read notes:process"`,
    );
    expect((await response.json()) as unknown).toEqual({
      detail: expect.stringMatching(/Missing access token/),
    });
    const parsed = extractWWWAuthenticateParams(response);
    expect(parsed.resourceMetadataUrl?.href).toBe(METADATA);
    expect(parsed.scope).toBe('notes:read notes:process');
  });

  it('refuses an svc_sk_ API key as an invalid token without trying it anywhere', async () => {
    const { handler, verifier } = setup();
    const key = `svc_sk_${randomBytes(32).toString('base64url')}`;
    const response = await handler(rpc(toolsList, { authorization: `Bearer ${key}` }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${METADATA}", scope="notes:read notes:process"`,
    );
    expect(((await response.json()) as { detail: string }).detail).toMatch(/API keys .* are not accepted/);
    expect(verifier.seen).toEqual([]);
  });

  it('answers 401 invalid_token for a token the verifier rejects, with its reason', async () => {
    const { handler } = setup();
    const response = await handler(rpc(toolsList, { authorization: 'Bearer forged' }));
    expect(response.status).toBe(401);
    expect(extractWWWAuthenticateParams(response).error).toBe('invalid_token');
    expect((await response.json()) as unknown).toEqual({ detail: 'Invalid access token: unknown token' });
  });

  it('answers 403 to a present Origin that is not allowed, and serves allowed or absent ones', async () => {
    const { handler, verifier } = setup();
    const token = verifier.mint(['notes:read']);
    const foreign = await handler(
      rpc(toolsList, { authorization: `Bearer ${token}`, origin: 'https://evil.example' }),
    );
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { detail: string }).detail).toMatch(/Origin https:\/\/evil.example/);
    for (const origin of [PUBLIC_URL, 'http://localhost:6274']) {
      const allowed = await handler(rpc(toolsList, { authorization: `Bearer ${token}`, origin }));
      expect(allowed.status, origin).toBe(200);
    }
  });

  it('answers 405 with Allow: POST to GET and DELETE', async () => {
    const { handler, verifier } = setup();
    const token = verifier.mint(['notes:read']);
    for (const method of ['GET', 'DELETE']) {
      const response = await handler(rpc(undefined, { authorization: `Bearer ${token}` }, method));
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('lists every tool to a token with notes:read only', async () => {
    const { handler, verifier } = setup();
    const response = await handler(
      rpc(toolsList, { authorization: `Bearer ${verifier.mint(['notes:read'])}` }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { tools: { name: string }[] } };
    expect(body.result.tools.map((tool) => tool.name)).toContain('deleteNote');
    expect(body.result.tools).toHaveLength(MCP_TOOL_NAMES.length);
  });

  it('labels its JSON UTF-8 and forbids sniffing, on protocol results and on HTTP errors alike', async () => {
    const { handler, verifier } = setup();
    const answers = [
      await handler(rpc(toolsList, { authorization: `Bearer ${verifier.mint(['notes:read'])}` })),
      await handler(rpc(toolsList)),
      await handler(rpc(toolsList, {}, 'GET')),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 401, 405]);
    for (const response of answers) {
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(typeof (await response.json())).toBe('object');
    }
  });

  it('answers 403 insufficient_scope naming granted plus needed scopes, as the SDK client reads it', async () => {
    const { handler, verifier } = setup();
    const token = verifier.mint(['notes:read', 'notes:process']);
    const response = await handler(
      rpc(callTool('updateNote', { note_id: randomUUID(), title: 'x' }), {
        authorization: `Bearer ${token}`,
      }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="notes:read notes:write notes:process", resource_metadata="${METADATA}", error_description="notes:write required"`,
    );
    const parsed = extractWWWAuthenticateParams(response);
    expect(parsed).toMatchObject({
      error: 'insufficient_scope',
      scope: 'notes:read notes:write notes:process',
    });
    expect(parsed.resourceMetadataUrl?.href).toBe(METADATA);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/updateNote needs notes:write/);
  });

  it('records the step-up (the grant and the scopes it lacked) before answering 403, and still answers if that fails', async () => {
    const recorded: [AccessGrant, McpScope[]][] = [];
    const { handler, verifier } = setup(async (grant, scopes) => {
      recorded.push([grant, scopes]);
    });
    const token = verifier.mint(['notes:read']);
    const call = () =>
      handler(rpc(callTool('deleteNote', { note_id: randomUUID() }), { authorization: `Bearer ${token}` }));
    expect((await call()).status).toBe(403);
    expect(recorded).toEqual([[await verifier.verify(token), ['notes:delete']]]);
    expect((await handler(rpc(toolsList, { authorization: `Bearer ${token}` }))).status).toBe(200);
    expect(recorded).toHaveLength(1);

    const failing = setup(() => Promise.reject(new Error('table unavailable')));
    const response = await failing.handler(
      rpc(callTool('deleteNote', {}), { authorization: `Bearer ${failing.verifier.mint(['notes:read'])}` }),
    );
    expect(response.status).toBe(403);
  });

  it('checks every call of a batch, and Ask needs both notes:read and notes:process', async () => {
    const { handler, verifier } = setup();
    const token = verifier.mint(['notes:process']);
    const response = await handler(
      rpc([callTool('askWorkspace', { question: 'why?' }, 3), callTool('deleteNote', {}, 4)], {
        authorization: `Bearer ${token}`,
      }),
    );
    expect(response.status).toBe(403);
    expect(extractWWWAuthenticateParams(response).scope).toBe('notes:read notes:process notes:delete');
  });

  it('leaves invalid JSON to the protocol: a JSON-RPC parse error', async () => {
    const { handler, verifier } = setup();
    const response = await handler(
      new Request(`${PUBLIC_URL}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${verifier.mint(['notes:read'])}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc": ',
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('serves a client that accepts only JSON, any media type, or sends no Accept', async () => {
    const { handler, verifier } = setup();
    const token = verifier.mint(['notes:read']);
    for (const accept of ['application/json', 'application/*', '*/*', 'text/html, application/json;q=0.5']) {
      const response = await handler(rpc(toolsList, { authorization: `Bearer ${token}`, accept }));
      expect(response.status, accept).toBe(200);
      expect(response.headers.get('content-type'), accept).toMatch(/^application\/json/);
      expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools, accept).toHaveLength(
        MCP_TOOL_NAMES.length,
      );
    }
    const request = rpc(toolsList, { authorization: `Bearer ${token}` });
    request.headers.delete('accept');
    expect((await handler(request)).status).toBe(200);
  });

  it('answers 406 with a detail to an Accept that rules JSON out, before any tool runs', async () => {
    const { handler, verifier } = setup();
    const token = verifier.mint(['notes:read', 'notes:delete']);
    const deletion = callTool('deleteNote', { note_id: randomUUID(), confirm_note_id: randomUUID() });
    for (const accept of [
      'text/event-stream',
      'text/html',
      'application/json;q=0',
      '*/*, application/json;q=0',
    ]) {
      const response = await handler(rpc(deletion, { authorization: `Bearer ${token}`, accept }));
      expect(response.status, accept).toBe(406);
      expect(((await response.json()) as { detail: string }).detail, accept).toMatch(
        /application\/json only/,
      );
    }
  });

  it('does not advertise tools.listChanged: a stateless JSON server cannot deliver the notification', async () => {
    const { handler, verifier } = setup();
    const response = await handler(
      rpc(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'unit', version: '1' },
          },
        },
        { authorization: `Bearer ${verifier.mint(['notes:read'])}` },
      ),
    );
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as {
      result: { capabilities: { tools?: { listChanged?: boolean } } };
    };
    expect(result.capabilities.tools).toBeDefined();
    expect(result.capabilities.tools?.listChanged).not.toBe(true);
  });

  it('does not send a result its outputSchema refuses: the call answers a tool error saying so', async () => {
    const verifier = new MintingVerifier();
    // An account record of the wrong shape (a numeric name) makes getCurrentAccount's result invalid.
    const account = { account_id: randomUUID(), name: 42, created_at: 1767000000000 };
    const handler = createMcpHandler({
      verifier,
      publicUrl: PUBLIC_URL,
      allowedOrigins: [],
      services: () => ({ accounts: { getAccount: async () => account } }) as unknown as Services,
      askServices: () => ({}) as AskServices,
    });
    const response = await handler(
      rpc(callTool('getCurrentAccount', {}), { authorization: `Bearer ${verifier.mint(['notes:read'])}` }),
    );
    const text = await response.text();
    expect(text).not.toContain(account.account_id);
    const { result } = JSON.parse(text) as {
      result: { isError?: boolean; structuredContent?: unknown; content: { text: string }[] };
    };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content[0]?.text).toMatch(/^Output validation error: .*getCurrentAccount/);
  });
});

describe('the MCP Lambda handler', () => {
  it('turns an API Gateway event into the Web request and the Web response into the result', async () => {
    const { verifier, handler } = setup();
    const lambda = mcpLambdaHandler(() => handler);
    const body = JSON.stringify(toolsList);
    const event = {
      version: '2.0',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      rawQueryString: '',
      headers: {
        host: 'notes.example.com',
        authorization: `Bearer ${verifier.mint(['notes:read'])}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      requestContext: {
        domainName: 'notes.example.com',
        http: { method: 'POST', path: '/mcp' },
        requestId: randomUUID(),
      },
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
    } as unknown as APIGatewayProxyEventV2;
    const request = toWebRequest(event);
    expect(request.url).toBe('https://notes.example.com/mcp');
    expect(await request.text()).toBe(body);

    const result = await lambda(event, {} as never);
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(result.body ?? '')).toMatchObject({ jsonrpc: '2.0', id: 1 });

    const empty = await toApiGatewayResult(new Response(null, { status: 202 }));
    expect(empty).toEqual({ statusCode: 202, headers: {} });
  });
});

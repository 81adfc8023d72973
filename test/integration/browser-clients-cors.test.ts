import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcp as postToMcp, TOOLS_LIST } from '../support/mcp-requests.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * Browser-based MCP clients (the MCP Inspector's web UI, web apps) over real HTTP against the local
 * runtime: CORS preflights and headers on the OAuth endpoints (any origin) and on /mcp (its origin
 * policy: the service's own origins and NOTES_MCP_ALLOWED_ORIGINS; foreign origins get 403).
 */
const INSPECTOR_ORIGIN = 'http://localhost:6274';
const FOREIGN_ORIGIN = 'https://evil.example';

let service: InProcessService;
let base: string;
let apiKey: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  process.env.NOTES_MCP_ALLOWED_ORIGINS = INSPECTOR_ORIGIN;
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  await service?.stop();
  delete process.env.NOTES_MCP_ALLOWED_ORIGINS;
});

function preflight(path: string, origin: string, method: string, headers: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': headers,
    },
  });
}

const listOf = (value: string | null) => (value ?? '').split(',').map((item) => item.trim().toLowerCase());

function postMcp(headers: Record<string, string>): Promise<Response> {
  return postToMcp(`${base}/mcp`, TOOLS_LIST, headers);
}

describe('the OAuth endpoints, for browser-based clients of any origin', () => {
  it.each([
    ['/.well-known/oauth-protected-resource', 'GET'],
    ['/.well-known/oauth-protected-resource/mcp', 'GET'],
    ['/.well-known/oauth-authorization-server', 'GET'],
    ['/oauth/jwks', 'GET'],
    ['/oauth/register', 'POST'],
    ['/oauth/token', 'POST'],
    ['/oauth/revoke', 'POST'],
  ])('answer a preflight of %s (%s) with 204 and CORS headers for any origin', async (path, method) => {
    const response = await preflight(
      path,
      'https://some-web-client.example',
      method,
      'content-type, mcp-protocol-version',
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(listOf(response.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
    expect(listOf(response.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['content-type', 'mcp-protocol-version', 'authorization']),
    );
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    // No credentials mode: public clients send no cookies.
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('let any origin read the metadata, a registration, a token error and a revocation', async () => {
    const origin = { origin: 'https://some-web-client.example' };
    const metadata = await fetch(`${base}/.well-known/oauth-authorization-server`, { headers: origin });
    const registration = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { ...origin, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Web client', redirect_uris: ['https://app.example/cb'] }),
    });
    const tokenError = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope' }),
    });
    const revocation = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'unknown-token' }),
    });
    expect([metadata.status, registration.status, tokenError.status, revocation.status]).toEqual([
      200, 201, 400, 200,
    ]);
    for (const response of [metadata, registration, tokenError, revocation]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('give /oauth/authorize no preflight: it is a top-level navigation', async () => {
    const response = await preflight('/oauth/authorize', INSPECTOR_ORIGIN, 'GET', 'content-type');
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('/mcp, for browser-based clients of allowed origins only', () => {
  it.each([
    ['the Inspector web UI (NOTES_MCP_ALLOWED_ORIGINS)', () => INSPECTOR_ORIGIN],
    ["the service's own origin", () => base],
  ])('answers a preflight from %s with 204 and the MCP headers', async (_, origin) => {
    const response = await preflight(
      '/mcp',
      origin(),
      'POST',
      'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id',
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin());
    expect(listOf(response.headers.get('vary'))).toContain('origin');
    expect(listOf(response.headers.get('access-control-allow-methods'))).toContain('post');
    expect(listOf(response.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'mcp-session-id',
        'last-event-id',
      ]),
    );
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('refuses the preflight of a foreign origin with 403 and no CORS headers', async () => {
    const response = await preflight('/mcp', FOREIGN_ORIGIN, 'POST', 'authorization, content-type');
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers an allowed origin without a token 401 with a challenge the browser may read', async () => {
    const response = await postMcp({ origin: INSPECTOR_ORIGIN });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(response.headers.get('access-control-allow-origin')).toBe(INSPECTOR_ORIGIN);
    expect(listOf(response.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining(['www-authenticate', 'mcp-session-id']),
    );
  });

  it('answers a foreign origin 403 before looking at the token, and tells it nothing about OAuth', async () => {
    const response = await postMcp({ origin: FOREIGN_ORIGIN });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await response.json()) as { detail: string }).detail).toContain(FOREIGN_ORIGIN);
  });

  it('serves requests without Origin (desktop clients) with no CORS headers', async () => {
    const response = await postMcp({});
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const options = await fetch(`${base}/mcp`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
    expect(options.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves an allowed origin with a valid token, CORS headers on the answer; a foreign origin still gets 403', async () => {
    const { access_token: token } = await accessTokenFor({ baseUrl: base, apiKey });
    const allowed = await postMcp({ origin: INSPECTOR_ORIGIN, authorization: `Bearer ${token}` });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(INSPECTOR_ORIGIN);
    const { result } = (await allowed.json()) as { result: { tools: Array<{ name: string }> } };
    expect(result.tools.map((tool) => tool.name)).toContain('listNotes');

    const foreign = await postMcp({ origin: FOREIGN_ORIGIN, authorization: `Bearer ${token}` });
    expect(foreign.status).toBe(403);
  });

  it('lets an allowed origin read the 405 of a GET instead of failing it as a CORS error', async () => {
    const response = await fetch(`${base}/mcp`, { headers: { origin: INSPECTOR_ORIGIN } });
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBe(INSPECTOR_ORIGIN);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken, TOOLS_LIST } from '../support/mcp-requests.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * Locally the service answers at `http://127.0.0.1:PORT` and `http://localhost:PORT` alike (people
 * type `localhost`). Each host name is its own issuer and MCP resource, so the SDK client's check that
 * the metadata's `resource` is the URL it connected to passes at both, and the audience check stays
 * strict: a token for one resource URL is refused at the other.
 */
let service: InProcessService;
let loopback: string;
let localhost: string;
let apiKey: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  loopback = service.runtime.apiUrl;
  localhost = loopback.replace('127.0.0.1', 'localhost');
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  await service?.stop();
});

async function json(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

function toolsList(base: string, token: string, origin?: string): Promise<Response> {
  return postMcpWithToken(`${base}/mcp`, token, TOOLS_LIST, origin ? { origin } : {});
}

describe('http://localhost:PORT and http://127.0.0.1:PORT', () => {
  it.each([
    ['localhost', () => localhost],
    ['127.0.0.1', () => loopback],
  ])('each publish metadata naming their own resource and issuer (%s)', async (_, base) => {
    const resource = await json(`${base()}/.well-known/oauth-protected-resource/mcp`);
    expect(resource).toMatchObject({ resource: `${base()}/mcp`, authorization_servers: [base()] });
    const server = await json(`${base()}/.well-known/oauth-authorization-server`);
    expect(server).toMatchObject({ issuer: base(), token_endpoint: `${base()}/oauth/token` });
  });

  it.each([
    ['localhost', () => localhost],
    ['127.0.0.1', () => loopback],
  ])('each challenge a request without a token with their own metadata URL (%s)', async (_, base) => {
    const response = await fetch(`${base()}/mcp`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base()}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('serve a token issued for a host at that host, and refuse it at the other (audience)', async () => {
    const forLocalhost = (await accessTokenFor({ baseUrl: localhost, apiKey })).access_token;
    const forLoopback = (await accessTokenFor({ baseUrl: loopback, apiKey })).access_token;
    expect((await toolsList(localhost, forLocalhost)).status).toBe(200);
    expect((await toolsList(loopback, forLoopback)).status).toBe(200);

    for (const [base, token] of [
      [loopback, forLocalhost],
      [localhost, forLoopback],
    ] as const) {
      const refused = await toolsList(base, token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/not for this resource \(aud\)/);
    }
  });

  it("issue a token for the resource the client asks for (RFC 8707), in that resource's issuer's name, good only at that resource's host", async () => {
    // Reached at localhost, asked for 127.0.0.1's resource: 127.0.0.1's metadata lists only its issuer.
    const { access_token: token } = await accessTokenFor({
      baseUrl: localhost,
      apiKey,
      resource: `${loopback}/mcp`,
    });
    expect(decodeJwt(token)).toMatchObject({ iss: loopback, aud: `${loopback}/mcp` });
    expect((await toolsList(loopback, token)).status).toBe(200);
    expect((await toolsList(localhost, token)).status).toBe(401);
  });

  it('refuse a resource that is not this server at either host', async () => {
    const registration = await fetch(`${localhost}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:9/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: 'http://localhost:1/mcp',
      state: 's',
    });
    const response = await fetch(`${localhost}/oauth/authorize?${query}`, { redirect: 'manual' });
    const back = new URL(response.headers.get('location') ?? 'http://invalid/');
    expect(back.searchParams.get('error')).toBe('invalid_target');
  });

  it('know a client registered at one host only there: the other asks it to register again', async () => {
    const registration = await fetch(`${localhost}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
    });
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    const query = (base: string) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: `${base}/mcp`,
      });
    const here = await fetch(`${localhost}/oauth/authorize?${query(localhost)}`, { redirect: 'manual' });
    expect(here.status).toBe(200);
    const there = await fetch(`${loopback}/oauth/authorize?${query(loopback)}`, { redirect: 'manual' });
    expect(there.status).toBe(400);
    expect(await there.text()).toMatch(/not registered here/);
  });

  it('redeem a code and a refresh token only at the issuer that issued them', async () => {
    await expect(accessTokenFor({ baseUrl: localhost, apiKey, exchangeAt: loopback })).rejects.toThrow(
      /invalid_grant.*issued by/,
    );
    const tokens = await accessTokenFor({ baseUrl: localhost, apiKey });
    const refresh = (base: string, token: string) =>
      fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
      });
    const elsewhere = await refresh(loopback, tokens.refresh_token);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(localhost, tokens.refresh_token)).status).toBe(200);
  });

  it("accept Origin http://localhost:PORT at /mcp, as the service's own origin", async () => {
    const { access_token: token } = await accessTokenFor({ baseUrl: localhost, apiKey });
    const response = await toolsList(localhost, token, localhost);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(localhost);
  });

  it('let the official SDK client discover OAuth at http://localhost:PORT/mcp (the resource matches)', async () => {
    // Before this change, the SDK stopped here: the metadata named 127.0.0.1's resource.
    const client = new Client({ name: 'localhost-check', version: '1.0.0' });
    const redirects: URL[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${localhost}/mcp`), {
      authProvider: {
        redirectUrl: 'http://127.0.0.1:53682/callback',
        clientMetadata: {
          client_name: 'localhost check',
          redirect_uris: ['http://127.0.0.1:53682/callback'],
          token_endpoint_auth_method: 'none',
        },
        clientInformation: () => undefined,
        saveClientInformation: () => undefined,
        tokens: () => undefined,
        saveTokens: () => undefined,
        redirectToAuthorization: (url) => {
          redirects.push(url);
        },
        saveCodeVerifier: () => undefined,
        codeVerifier: () => '',
      },
    });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(redirects).toHaveLength(1);
    const authorization = redirects[0] as URL;
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${localhost}/oauth/authorize`);
    expect(authorization.searchParams.get('resource')).toBe(`${localhost}/mcp`);
    await client.close();
  });
});

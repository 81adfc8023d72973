import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import { HeadlessOAuthProvider, loggingFetch } from '../support/headless-oauth.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';

/**
 * The registrations real MCP clients send (test/fixtures/mcp-clients/, each naming its source), each
 * registered over HTTP with the local runtime as `npm start` runs it, then taken through the whole
 * flow by the official SDK client: authorization code with PKCE through the local sign-in and
 * consent, the token, MCP initialize and tools/list. The redirect back to the client is read from
 * the Location header and never followed, so custom schemes (cursor://) and hosted callbacks
 * (claude.ai) are checked as they would reach the client.
 */
interface ClientFixture {
  client: string;
  authorization_redirect_uri: string;
  registration: OAuthClientMetadata & Record<string, unknown>;
}

const FIXTURES_DIR = join(REPO_ROOT, 'test', 'fixtures', 'mcp-clients');
const fixtures = readdirSync(FIXTURES_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8')) as ClientFixture);

const DEFAULT_SCOPE = 'notes:read notes:process';
const SCOPE_ORDER = ['notes:read', 'notes:write', 'notes:process', 'notes:delete'];

let service: RunningService;
let mcpUrl: URL;
const connected: Client[] = [];

beforeAll(async () => {
  service = await startService();
  mcpUrl = new URL(`${service.baseUrl}/mcp`);
});

afterAll(async () => {
  for (const client of connected) await client.close().catch(() => undefined);
  await service?.stop();
});

function register(body: unknown): Promise<Response> {
  return fetch(`${service.baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The token requests' bodies and Authorization headers, to see how the client authenticated. */
function recordingTokenRequests(
  sent: { body: URLSearchParams; authorization: string | null }[],
  inner: FetchLike,
): FetchLike {
  return (url, init) => {
    if (new URL(String(url)).pathname === '/oauth/token') {
      sent.push({
        body: new URLSearchParams(String(init?.body ?? '')),
        authorization: new Headers(init?.headers).get('authorization'),
      });
    }
    return inner(url, init);
  };
}

describe('the registrations of real MCP clients, each completing the flow with the official SDK client', () => {
  it('has a fixture for Claude (web and desktop), Claude Code, VS Code, Cursor and the MCP Inspector', () => {
    expect(fixtures.map((fixture) => fixture.client).sort()).toEqual([
      'Claude (web connector)',
      'Claude Code',
      'Claude Desktop',
      'Cursor',
      'MCP Inspector',
      'VS Code',
    ]);
  });

  it.each(fixtures.map((fixture) => [fixture.client, fixture] as const))(
    '%s: registers, signs in, gets a token and lists the tools',
    async (_name, fixture) => {
      const response = await register(fixture.registration);
      expect(response.status).toBe(201);
      const registered = (await response.json()) as OAuthClientInformationMixed & Record<string, unknown>;
      // What was registered, said in the answer (RFC 7591 section 3.2.1): a public client, no secret.
      expect(registered).toMatchObject({
        client_id: expect.any(String),
        redirect_uris: fixture.registration.redirect_uris,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      expect(registered).not.toHaveProperty('client_secret');
      const asked = (fixture.registration.scope ?? '').split(' ').filter(Boolean);
      expect(registered.scope).toBe(
        asked.length > 0 ? SCOPE_ORDER.filter((s) => asked.includes(s)).join(' ') : DEFAULT_SCOPE,
      );

      const provider = new HeadlessOAuthProvider({
        base: service.baseUrl,
        signInKey: service.apiKey,
        redirectUrl: fixture.authorization_redirect_uri,
        clientMetadata: fixture.registration,
        clientInformation: registered,
      });
      const tokenRequests: { body: URLSearchParams; authorization: string | null }[] = [];
      const transport = () =>
        new StreamableHTTPClientTransport(mcpUrl, {
          authProvider: provider,
          fetch: recordingTokenRequests(tokenRequests, loggingFetch(provider.log)),
        });
      const client = new Client({ name: fixture.client, version: '1.0.0' });
      connected.push(client);
      const first = transport();
      await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      await first.finishAuth(provider.takeCode());
      await client.connect(transport());

      // The code went back to the client's own redirect URI, whatever its scheme.
      expect(provider.redirects).toHaveLength(1);
      expect(provider.redirects[0]).toMatch(/^[^?]+\?code=[^&]+&state=[^&]+&iss=/);
      expect(provider.redirects[0]?.startsWith(`${fixture.authorization_redirect_uri}?`)).toBe(true);
      expect(provider.log).not.toContain('POST /oauth/register -> 201');
      // The default grant, as the 401 asked for it; the token request carried no client secret.
      expect(provider.consents).toEqual([{ held: [], offered: ['notes:read', 'notes:process'] }]);
      expect(provider.tokens()?.scope).toBe(DEFAULT_SCOPE);
      expect(tokenRequests).toHaveLength(1);
      expect(tokenRequests[0]?.body.get('grant_type')).toBe('authorization_code');
      expect(tokenRequests[0]?.body.get('client_id')).toBe(registered.client_id);
      expect(tokenRequests[0]?.body.has('client_secret')).toBe(false);
      expect(tokenRequests[0]?.authorization).toBeNull();

      const { tools } = await client.listTools();
      expect(tools).toHaveLength(19);
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['listNotes', 'getNote']));
    },
  );

  it("tells the user where Cursor's code goes: the consent page names the app scheme and its host", async () => {
    const cursor = fixtures.find((fixture) => fixture.client === 'Cursor') as ClientFixture;
    const registered = (await (await register(cursor.registration)).json()) as OAuthClientInformationMixed;
    const provider = new HeadlessOAuthProvider({
      base: service.baseUrl,
      signInKey: service.apiKey,
      redirectUrl: cursor.authorization_redirect_uri,
      clientInformation: registered,
    });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const client = new Client({ name: 'cursor-consent', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.returnsTo).toEqual(['cursor://anysphere.cursor-mcp']);
  });
});

describe('registration answers', () => {
  it('names the refused redirect URI among several, and why: 400 invalid_redirect_uri', async () => {
    const cursor = fixtures.find((fixture) => fixture.client === 'Cursor') as ClientFixture;
    const response = await register({
      ...cursor.registration,
      redirect_uris: [...cursor.registration.redirect_uris, 'myapp:/callback'],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_redirect_uri',
      error_description: expect.stringMatching(
        /^redirect_uris\[3\] \("myapp:\/callback"\) uses the scheme myapp:, which is not a known MCP client's/,
      ),
    });
    for (const [uri, why] of [
      ['javascript:alert(1)', /javascript: scheme/],
      ['data:text/html,x', /data: scheme/],
      ['http://app.example.com/callback', /must use https, unless it is a loopback address/],
      ['cursor://anysphere.cursor-mcp/oauth/callback#x', /fragment/],
    ] as const) {
      const refused = await register({ redirect_uris: ['http://127.0.0.1/callback', uri] });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_redirect_uri');
      expect(body.error_description).toMatch(/^redirect_uris\[1\] /);
      expect(body.error_description).toMatch(why);
    }
  });

  it('gives an authorization request that names no scope the scope the client registered; a secret sent anyway is ignored', async () => {
    const response = await register({
      redirect_uris: ['http://127.0.0.1/callback'],
      scope: 'notes:read',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const registered = (await response.json()) as { client_id: string; scope: string };
    expect(registered.scope).toBe('notes:read');
    const provider = new HeadlessOAuthProvider({
      base: service.baseUrl,
      signInKey: service.apiKey,
      redirectUrl: 'http://127.0.0.1:40001/callback',
    });
    const verifier = 'a-code-verifier-for-the-registered-scope-test-0123456789';
    const url = new URL(`${service.baseUrl}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: provider.redirectUrl,
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
      state: provider.state(),
    }).toString();
    await provider.redirectToAuthorization(url);
    expect(provider.consents).toEqual([{ held: [], offered: ['notes:read'] }]);

    // A client that asked for client_secret_post and has no secret may still send the parameter.
    const token = await fetch(`${service.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: provider.takeCode(),
        client_id: registered.client_id,
        client_secret: '',
        redirect_uri: provider.redirectUrl,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    expect(((await token.json()) as { scope: string }).scope).toBe('notes:read');
  });
});

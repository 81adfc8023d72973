import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The CORS headers checked over plain HTTP in browser-clients-cors.test.ts, now enforced by a real
 * browser: Debian's Chromium (headless, driven by playwright-core; installed by
 * `node scripts/ensure-deps.mjs test`) runs fetches from a page of an allowed origin and from a page
 * of a foreign one, as a browser-based MCP client would; then the official MCP SDK client, bundled
 * for the browser, connects from the allowed page with its OAuth support (discovery, registration,
 * authorization in a second tab, token exchange) and lists and calls the tools.
 */
const CHROMIUM = '/usr/bin/chromium';

let service: InProcessService;
let base: string;
let token: string;
let apiKey: string;
let browser: Browser;
const pages: Server[] = [];
let allowedPage: string;
let foreignPage: string;

/** The MCP SDK's client, bundled for the browser: `McpSdk.Client`, `McpSdk.StreamableHTTPClientTransport`. */
async function sdkBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: [
        "export { Client } from '@modelcontextprotocol/sdk/client/index.js';",
        "export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';",
      ].join('\n'),
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'McpSdk',
    write: false,
    logLevel: 'silent',
  });
  return (result.outputFiles[0] as { text: string }).text;
}

/**
 * A web app on its own port (its origin is what the browser sends as `Origin`): a blank page that
 * loads the SDK bundle, and `/cb`, where the authorization redirects back to.
 */
async function pageServer(sdk: string): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(sdk);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>client</title><script src="/sdk.js"></script>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  pages.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run node scripts/ensure-deps.mjs test`);
  const sdk = await sdkBundle();
  allowedPage = await pageServer(sdk);
  foreignPage = await pageServer(sdk);
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  process.env.NOTES_MCP_ALLOWED_ORIGINS = allowedPage;
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  token = (await accessTokenFor({ baseUrl: base, apiKey })).access_token;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  for (const server of pages) server.close();
  delete process.env.NOTES_MCP_ALLOWED_ORIGINS;
});

interface Seen {
  metadataResource?: string;
  registered?: number;
  tokenError?: string;
  revoked?: number;
  challenge?: string | null;
  tools?: string[];
  failure?: string;
}

/** Runs a browser-based client's calls in a page of `origin`; what the page could read. */
async function fromPage(origin: string, steps: 'oauth' | 'mcp'): Promise<Seen> {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ base, token, steps }) => {
        const seen: Seen = {};
        const mcpHeaders = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        };
        const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        try {
          if (steps === 'oauth') {
            const metadata = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, {
              headers: { 'mcp-protocol-version': '2025-06-18' },
            });
            seen.metadataResource = ((await metadata.json()) as { resource: string }).resource;
            const registration = await fetch(`${base}/oauth/register`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                client_name: 'Browser client',
                redirect_uris: ['https://app.example/cb'],
              }),
            });
            seen.registered = registration.status;
            const form = { 'content-type': 'application/x-www-form-urlencoded' };
            const exchange = await fetch(`${base}/oauth/token`, {
              method: 'POST',
              headers: form,
              body: 'grant_type=authorization_code&code=made-up',
            });
            seen.tokenError = ((await exchange.json()) as { error: string }).error;
            const revocation = await fetch(`${base}/oauth/revoke`, {
              method: 'POST',
              headers: form,
              body: 'token=unknown',
            });
            seen.revoked = revocation.status;
          } else {
            const challenge = await fetch(`${base}/mcp`, {
              method: 'POST',
              headers: mcpHeaders,
              body: toolsList,
            });
            seen.challenge = challenge.headers.get('www-authenticate');
            const listed = await fetch(`${base}/mcp`, {
              method: 'POST',
              headers: { ...mcpHeaders, authorization: `Bearer ${token}` },
              body: toolsList,
            });
            const { result } = (await listed.json()) as { result: { tools: Array<{ name: string }> } };
            seen.tools = result.tools.map((tool) => tool.name);
          }
        } catch (error) {
          seen.failure = String(error);
        }
        return seen;
      },
      { base, token, steps },
    );
  } finally {
    await page.close();
  }
}

describe('a browser-based MCP client in Chromium', () => {
  it('discovers, registers, and reads token and revocation answers from any origin', async () => {
    for (const origin of [allowedPage, foreignPage]) {
      expect(await fromPage(origin, 'oauth')).toEqual({
        metadataResource: `${base}/mcp`,
        registered: 201,
        tokenError: 'invalid_grant',
        revoked: 200,
      });
    }
  });

  it('reads the 401 challenge and lists the tools from an allowed origin', async () => {
    const seen = await fromPage(allowedPage, 'mcp');
    expect(seen.failure).toBeUndefined();
    expect(seen.challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    expect(seen.tools).toContain('listNotes');
  });

  it('is stopped by the browser at /mcp from a foreign origin, token or not', async () => {
    const seen = await fromPage(foreignPage, 'mcp');
    expect(seen.failure).toMatch(/TypeError: Failed to fetch/);
    expect(seen.tools).toBeUndefined();
  });
});

/** What the page's SDK client saw: a step's outcome, or the error that stopped it. */
interface SdkOutcome {
  authorizationUrl?: string;
  error?: string;
  tools?: string[];
  called?: string;
}

describe('the official MCP SDK client, running in Chromium on an allowed origin', () => {
  it('authorizes with OAuth, then lists and calls the tools', async () => {
    const app = await browser.newPage();
    try {
      await app.goto(allowedPage);
      // First connection: discovery and registration from the page, then the authorization URL.
      const first = await app.evaluate(
        async ({ base, origin }): Promise<SdkOutcome> => {
          const callback = `${origin}/cb`;
          const state: ProviderState = {};
          const provider: OAuthClientProvider = {
            redirectUrl: callback,
            clientMetadata: {
              client_name: 'Browser SDK client',
              redirect_uris: [callback],
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              token_endpoint_auth_method: 'none',
            },
            clientInformation: () => state.client,
            saveClientInformation: (client) => {
              state.client = client;
            },
            tokens: () => state.tokens,
            saveTokens: (tokens) => {
              state.tokens = tokens;
            },
            redirectToAuthorization: (url: URL) => {
              state.authorizationUrl = url.href;
            },
            saveCodeVerifier: (verifier: string) => {
              state.verifier = verifier;
            },
            codeVerifier: () => state.verifier ?? '',
          };
          const sdk = (globalThis as unknown as { McpSdk: McpSdkGlobal }).McpSdk;
          const client = new sdk.Client({ name: 'browser-sdk-client', version: '1.0.0' });
          const transport = new sdk.StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
            authProvider: provider,
          });
          Object.assign(globalThis, { mcp: { sdk, client, provider, base } });
          try {
            await client.connect(transport);
            return { error: 'connected without authorization' };
          } catch (error) {
            return {
              error: String(error),
              ...(state.authorizationUrl ? { authorizationUrl: state.authorizationUrl } : {}),
            };
          }
        },
        { base, origin: allowedPage },
      );
      expect(first.error).toMatch(/Unauthorized/);
      expect(first.authorizationUrl).toMatch(new RegExp(`^${base}/oauth/authorize\\?`));

      // The user's part, in a second tab: sign in with the API key, allow, back to the app's /cb.
      const tab = await browser.newPage();
      await tab.goto(first.authorizationUrl as string);
      await tab.fill('input[name="api_key"]', apiKey);
      await tab.click('button[value="sign_in"]');
      await tab.click('button[value="approve"]');
      await tab.waitForURL(`${allowedPage}/cb?**`);
      const code = new URL(tab.url()).searchParams.get('code');
      await tab.close();
      expect(code).toBeTruthy();

      // Back in the app: the code for tokens, a new connection, the tools.
      const second = await app.evaluate(async (code): Promise<SdkOutcome> => {
        const { sdk, client, provider, base } = (globalThis as unknown as { mcp: McpPageState }).mcp;
        try {
          const authorizing = new sdk.StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
            authProvider: provider,
          });
          await authorizing.finishAuth(code);
          await client.connect(
            new sdk.StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }),
          );
          const { tools } = await client.listTools();
          const result = await client.callTool({ name: 'listNotes', arguments: {} });
          const text = (result.content as Array<{ text: string }>).map((part) => part.text).join('');
          await client.close();
          return { tools: tools.map((tool) => tool.name), called: text };
        } catch (error) {
          return { error: String(error) };
        }
      }, code as string);
      expect(second.error).toBeUndefined();
      expect(second.tools).toEqual(expect.arrayContaining(['listNotes', 'getNote', 'askWorkspace']));
      expect(JSON.parse(second.called as string)).toMatchObject({ notes: [] });
    } finally {
      await app.close();
    }
  });
});

/** The part of the bundle the page uses (types only: the code runs in the browser). */
interface McpSdkGlobal {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
}

interface McpPageState {
  sdk: McpSdkGlobal;
  client: InstanceType<McpSdkGlobal['Client']>;
  provider: OAuthClientProvider;
  base: string;
}

/** What an app keeps between the redirect and its return (in memory here). */
interface ProviderState {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: string;
}

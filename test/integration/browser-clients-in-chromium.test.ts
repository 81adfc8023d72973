import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The CORS headers checked over plain HTTP in browser-clients-cors.test.ts, now enforced by a real
 * browser: Debian's Chromium (headless, driven by playwright-core; installed by
 * `node scripts/ensure-deps.mjs test`) runs fetches from a page of an allowed origin and from a page
 * of a foreign one, as a browser-based MCP client would.
 */
const CHROMIUM = '/usr/bin/chromium';

let service: InProcessService;
let base: string;
let token: string;
let browser: Browser;
const pages: Server[] = [];
let allowedPage: string;
let foreignPage: string;

/** A blank page on its own port: its origin is what the browser sends as `Origin`. */
async function pageServer(): Promise<string> {
  const server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>client</title>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  pages.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run node scripts/ensure-deps.mjs test`);
  allowedPage = await pageServer();
  foreignPage = await pageServer();
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  process.env.NOTES_MCP_ALLOWED_ORIGINS = allowedPage;
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
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
        tokenError: 'invalid_request',
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

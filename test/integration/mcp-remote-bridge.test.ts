import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { MCP_TOOL_NAMES } from '../../src/mcp/tools.ts';
import { HeadlessOAuthProvider } from '../support/headless-oauth.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * `mcp-remote`, the stdio bridge desktop clients run for remote servers, driven headless as a
 * desktop client would run it: the bridge process starts, finds the server needs OAuth, registers,
 * and prints the authorization URL (its browser opener is a no-op here); the test plays the user's
 * browser (sign-in with the API key, consent) and hands the code to the bridge's own loopback
 * callback; then it speaks JSON-RPC on the bridge's stdin and stdout. Both of its protocol modes:
 * `legacy` (its default, initialize over 2025-11-25) and `auto` (it probes with server/discover).
 */
let service: InProcessService;
let base: string;
let apiKey: string;
const bridges: ChildProcessWithoutNullStreams[] = [];
const configDirs: string[] = [];

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  for (const bridge of bridges) bridge.kill();
  for (const dir of configDirs) await rm(dir, { recursive: true, force: true });
  await service?.stop();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The bridge's stdout as JSON-RPC: send a message, await the response with its id. */
function jsonRpc(bridge: ChildProcessWithoutNullStreams) {
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  createInterface({ input: bridge.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number } & Record<string, unknown>;
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  let next = 1;
  return {
    request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      const id = next++;
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      bridge.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    },
    notify(method: string): void {
      bridge.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
  };
}

/** Resolves with the first stderr match of `pattern` (the bridge logs there). */
function fromStderr(bridge: ChildProcessWithoutNullStreams, log: string[], pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const match = pattern.exec(log.join(''));
      if (match) resolve(match[1] ?? match[0]);
    };
    bridge.stderr.on('data', look);
    bridge.on('exit', (code) => reject(new Error(`mcp-remote exited (${code}):\n${log.join('')}`)));
    look();
  });
}

describe("mcp-remote (the desktop clients' stdio bridge) through the whole OAuth flow", () => {
  it.each(['legacy', 'auto'])(
    'protocol %s: authorizes in the browser, then lists and calls tools over stdio',
    async (mode) => {
      const port = await freePort();
      const configDir = await mkdtemp(join(tmpdir(), 'mcp-remote-'));
      configDirs.push(configDir);
      const bridge = spawn(
        process.execPath,
        [
          join(REPO_ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js'),
          `${base}/mcp`,
          String(port),
          '--allow-http',
          '--host',
          '127.0.0.1',
          '--protocol',
          mode,
        ],
        // BROWSER: the opener runs `true` instead of a browser; the test is the browser.
        { env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true', DISPLAY: '' } },
      );
      bridges.push(bridge);
      const log: string[] = [];
      bridge.stderr.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));

      const authorizationUrl = await fromStderr(
        bridge,
        log,
        /Please authorize this client by visiting:\s*(\S+)/,
      );
      const browser = new HeadlessOAuthProvider({
        base,
        signInKey: apiKey,
        redirectUrl: `http://127.0.0.1:${port}/oauth/callback`,
      });
      await browser.redirectToAuthorization(new URL(authorizationUrl));
      // The browser follows the redirect to the bridge's loopback callback, which takes the code.
      // In `auto` mode the bridge prints the URL before its callback server listens: wait for both.
      await fromStderr(bridge, log, /OAuth callback server running at/);
      const callback = await fetch(browser.redirects[0] ?? '');
      expect(callback.status).toBe(200);
      await fromStderr(bridge, log, /Proxy established successfully/);

      const rpc = jsonRpc(bridge);
      const initialized = await rpc.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'desktop-client', version: '1.0.0' },
      });
      expect(initialized.result).toMatchObject({ serverInfo: { name: 'notes' } });
      rpc.notify('notifications/initialized');
      const listed = (await rpc.request('tools/list')) as { result: { tools: { name: string }[] } };
      expect(listed.result.tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
      const account = (await rpc.request('tools/call', { name: 'getCurrentAccount', arguments: {} })) as {
        result: { isError?: boolean; structuredContent: unknown };
      };
      expect(account.result.isError).toBeFalsy();
      expect(account.result.structuredContent).toMatchObject({
        access_token: { scopes: ['notes:read', 'notes:process'] },
      });
      expect(browser.consents).toEqual([{ held: [], offered: ['notes:read', 'notes:process'] }]);
    },
  );
});

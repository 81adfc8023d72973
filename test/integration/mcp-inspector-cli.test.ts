import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The "must be shown": the MCP Inspector's own CLI (`@modelcontextprotocol/inspector-cli`,
 * what `npx @modelcontextprotocol/inspector --cli` runs; a pinned devDependency, no install scripts)
 * lists the tools and calls one through `http://localhost:PORT/mcp`, with a real access token from
 * the OAuth flow at that host.
 */
const inspectorBuild = join(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json'),
  '..',
  'build',
);
const inspectorCli = join(inspectorBuild, 'cli.js');

/**
 * Runs the Inspector CLI against `http://localhost:PORT/mcp` with `token`. Its build/ directory is
 * the working directory: 1.0.3 looks for its own package.json at `../package.json` relative to the
 * working directory (and imports it relative to its module), so anywhere else it fails to start.
 */
function runInspector(bearer: string, args: string[]) {
  return promisify(execFile)(
    process.execPath,
    [
      inspectorCli,
      '--cli',
      `${localhost}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${bearer}`,
      ...args,
    ],
    { cwd: inspectorBuild, timeout: 60_000 },
  );
}

let service: InProcessService;
let localhost: string;
let token: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  localhost = service.runtime.apiUrl.replace('127.0.0.1', 'localhost');
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  token = (await accessTokenFor({ baseUrl: localhost, apiKey })).access_token;
});

afterAll(async () => {
  await service?.stop();
});

/** The JSON the CLI prints for `args`, with the token from the OAuth flow. */
async function inspector(args: string[]): Promise<unknown> {
  const { stdout } = await runInspector(token, args);
  return JSON.parse(stdout);
}

describe('the MCP Inspector CLI at http://localhost:PORT/mcp', () => {
  it('lists the tools, with their annotations', async () => {
    const { tools } = (await inspector(['--method', 'tools/list'])) as {
      tools: Array<{ name: string; annotations?: Record<string, unknown> }>;
    };
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['listNotes', 'getNote', 'askWorkspace', 'deleteNote']));
    expect(names).not.toContain('submitTranscription');
    expect(tools.find((tool) => tool.name === 'listNotes')?.annotations).toMatchObject({
      readOnlyHint: true,
    });
  });

  it("calls listNotes and gets the account's notes (none yet) as structured content", async () => {
    const result = (await inspector(['--method', 'tools/call', '--tool-name', 'listNotes'])) as {
      isError?: boolean;
      content: Array<{ type: string; text: string }>;
    };
    expect(result.isError ?? false).toBe(false);
    const text = result.content.map((part) => part.text).join('\n');
    expect(JSON.parse(text)).toMatchObject({ notes: [] });
  });

  it('is refused with a token issued for http://127.0.0.1:PORT/mcp (another resource URL)', async () => {
    const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
    const other = (await accessTokenFor({ baseUrl: service.runtime.apiUrl, apiKey })).access_token;
    await expect(runInspector(other, ['--method', 'tools/list'])).rejects.toMatchObject({
      stderr: expect.stringMatching(/not for this resource \(aud\)/),
    });
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { waitUntil } from '../support/wait.ts';

/**
 * What a person sees in the terminal of `npm start` (bin/local-server.ts run as a process): the
 * banner leads with the web app and the key to sign in with, then the CLI, API and MCP; then one
 * short line per change or problem, while the reads a client polls with are not logged at INFO.
 * With NOTES_LOG_FORMAT=json (the container image, a log collector) the same lines are JSON objects.
 */
let text: RunningService;
let json: RunningService;

beforeAll(async () => {
  [text, json] = await Promise.all([startService(), startService({ env: { NOTES_LOG_FORMAT: 'json' } })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([text?.stop(), json?.stop()]);
});

async function readAndChange(service: RunningService): Promise<string> {
  const auth = { Authorization: `Bearer ${service.apiKey}` };
  for (let poll = 0; poll < 3; poll += 1) await fetch(`${service.baseUrl}/v1/notes`, { headers: auth });
  const name = `Console ${randomUUID()}`;
  const created = await fetch(`${service.baseUrl}/v1/collections`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(created.status).toBe(201);
  const missing = await fetch(`${service.baseUrl}/v1/notes/${randomUUID()}`, { headers: auth });
  expect(missing.status).toBe(404);
  return name;
}

describe('the first run, as a person sees it', () => {
  it('leads with the web app and the key to sign in with, then the CLI, API and MCP', () => {
    const banner = text.output().slice(text.output().indexOf('Notes service is running.'));
    const lines = banner.split('\n').filter((line) => line.trim() !== '');
    expect(lines[0]).toBe('Notes service is running.');
    expect(lines[1]).toBe(`  Open ${text.baseUrl}/ in a browser and sign in with this key:`);
    expect(lines[2]?.trim()).toBe(text.apiKey);
    const order = ['CLI:', 'API:', 'MCP:', 'Speech:'].map((label) => banner.indexOf(`  ${label}`));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > (order[i - 1] ?? 0)))).toBe(true);
    expect(banner).toContain(`API:  ${text.baseUrl}/v1`);
    expect(banner).toContain(`MCP:  ${text.baseUrl}/mcp`);
  });

  it('logs a change and a failure as one short line each, and not the reads a client polls with', async () => {
    await readAndChange(text);
    await waitUntil(() => /request route=getNote status=404/.test(text.output()), 'the 404 logged', 10_000);
    const logLines = text
      .output()
      .split('\n')
      .filter((line) => / request route=/.test(line));
    expect(logLines).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d request route=createCollection status=201$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d request route=getNote status=404$/),
    ]);
    expect(text.output()).not.toContain('route=listNotes');
    expect(text.output()).not.toContain('"level"');
  });

  it('writes JSON objects instead when NOTES_LOG_FORMAT=json', async () => {
    await readAndChange(json);
    await waitUntil(() => json.output().includes('"route":"getNote"'), 'the 404 logged', 10_000);
    const logged = json
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((item) => item.message === 'request');
    expect(logged.map(({ route, status, level }) => ({ route, status, level }))).toEqual([
      { route: 'createCollection', status: 201, level: 'INFO' },
      { route: 'getNote', status: 404, level: 'INFO' },
    ]);
  });
});

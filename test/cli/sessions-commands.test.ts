import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

let service: RunningService;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startService();
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
});
afterAll(() => service?.stop());

interface Session {
  session_id: string;
  kind: string;
  client_id: string | null;
  scopes: string[];
  signed_in_with: { kind: string; key_id?: string };
}

/** A web app session of the service's key, as a browser tab would hold. */
async function webAppSession(): Promise<string> {
  const tokens = await accessTokenFor({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    resource: `${service.baseUrl}/v1`,
    client: { clientId: 'notes-web', redirectUri: `${service.baseUrl}/app/callback` },
  });
  return tokens.access_token;
}

const notesWith = (token: string) => client(service.baseUrl, token)('GET', '/v1/notes');

describe('notes sessions ...', () => {
  it('lists a signed-in web app with its scopes and key, ends it by ID, and its token is refused from then on', async () => {
    const token = await webAppSession();
    const listed = await runCli(['sessions', 'list'], env);
    expect(listed.code, describeRun(listed)).toBe(0);
    const session = stdoutJson<{ sessions: Session[] }>(listed).sessions.find(
      (s) => s.client_id === 'notes-web',
    );
    expect(session).toMatchObject({
      kind: 'app',
      scopes: ['notes:read', 'notes:write', 'notes:process'],
      signed_in_with: { kind: 'api_key' },
    });
    expect(listed.stdout).not.toContain(service.apiKey);

    const ended = await runCli(['sessions', 'end', session?.session_id ?? ''], env);
    expect(ended.code, describeRun(ended)).toBe(0);
    expect(ended.stdout).toBe('');
    expect(ended.stderr).toContain(`Ended session ${session?.session_id}`);
    expect((await notesWith(token)).status).toBe(401);

    const again = await runCli(['sessions', 'end', session?.session_id ?? ''], env);
    expect(again.code, describeRun(again)).not.toBe(0);
    expect(again.stderr).toMatch(/No such session/);
  });

  it('ends every session with --all and says how many', async () => {
    const tokens = [await webAppSession(), await webAppSession()];
    const ended = await runCli(['sessions', 'end', '--all'], env);
    expect(ended.code, describeRun(ended)).toBe(0);
    expect(stdoutJson<{ ended: number; left: number }>(ended)).toEqual({ ended: 2, left: 0 });
    for (const token of tokens) expect((await notesWith(token)).status).toBe(401);
  });

  it('refuses a malformed session ID without sending anything (exit 2)', async () => {
    const result = await runCli(['sessions', 'end', 'not-a-session'], env);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toMatch(/session's ID/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

let service: RunningService;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startService();
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
});
afterAll(() => service?.stop());

interface Key {
  key_id: string;
  name: string | null;
  prefix: string | null;
  revoked_at: number | null;
}

describe('notes keys ...', () => {
  it('creates a named key (printed once), lists it without the secret, revokes it, and the revoked key is refused', async () => {
    const created = await runCli(['keys', 'create', 'Laptop CLI'], env);
    expect(created.code, describeRun(created)).toBe(0);
    const key = stdoutJson<Key & { api_key: string }>(created);
    expect(key).toMatchObject({ name: 'Laptop CLI', revoked_at: null });
    expect(key.api_key).toMatch(/^svc_sk_/);
    expect(created.stderr).toMatch(/only time the key is shown/);

    const withNewKey = await runCli(['auth', 'status'], { ...env, NOTES_API_KEY: key.api_key });
    expect(withNewKey.code, describeRun(withNewKey)).toBe(0);
    expect(stdoutJson(withNewKey)).toMatchObject({ key_id: key.key_id });

    const listed = await runCli(['keys', 'list'], env);
    expect(listed.code, describeRun(listed)).toBe(0);
    expect(stdoutJson<{ keys: Key[] }>(listed).keys[0]).toMatchObject({
      key_id: key.key_id,
      name: 'Laptop CLI',
      prefix: key.api_key.slice(0, 11),
    });
    expect(listed.stdout).not.toContain(key.api_key);

    const revoked = await runCli(['keys', 'revoke', key.key_id], env);
    expect(revoked.code, describeRun(revoked)).toBe(0);
    expect(revoked.stdout).toBe('');
    expect(revoked.stderr).toContain(`Revoked API key ${key.key_id}`);

    const refused = await runCli(['auth', 'status'], { ...env, NOTES_API_KEY: key.api_key });
    expect(refused.code, describeRun(refused)).toBe(3);
  });

  it('creates a key with fewer scopes (--scope): it reads, and cannot make itself a wider key', async () => {
    const created = await runCli(['keys', 'create', 'Dashboard', '--scope', 'notes:read'], env);
    expect(created.code, describeRun(created)).toBe(0);
    const key = stdoutJson<Key & { api_key: string; scopes: string[] }>(created);
    expect(key.scopes).toEqual(['notes:read']);
    const reader = { ...env, NOTES_API_KEY: key.api_key };
    const listed = await runCli(['keys', 'list'], reader);
    expect(listed.code, describeRun(listed)).toBe(0);
    const wider = await runCli(['keys', 'create', 'Wider'], reader);
    expect(wider.code, describeRun(wider)).toBe(3);
    expect(wider.stderr).toMatch(/notes:write/);
  });

  it('exits 2 for a missing name or a malformed key ID, before any request', async () => {
    const noName = await runCli(['keys', 'create', ' '], env);
    expect(noName.code, describeRun(noName)).toBe(2);
    const badId = await runCli(['keys', 'revoke', 'svc_sk_abc'], env);
    expect(badId.code, describeRun(badId)).toBe(2);
    expect(badId.stderr).toMatch(/key_ and 16 hex digits/);
  });

  it('exits 4 for a key ID the account does not have', async () => {
    const result = await runCli(['keys', 'revoke', 'key_0123456789abcdef'], env);
    expect(result.code, describeRun(result)).toBe(4);
    expect(result.stderr).toMatch(/HTTP 404/);
  });
});

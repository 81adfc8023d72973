import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';

let dataDir: string;
let service: RunningService;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notes-damaged-'));
  service = await startService({ dataDir });
  await service.signal('SIGTERM');
}, 120_000);

afterAll(async () => {
  await service?.signal('SIGTERM');
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts on the data directory and answers GET /v1/account with its key, or says why it could not. */
async function startAndReadAccount(): Promise<number> {
  await service.start();
  const response = await fetch(`${service.baseUrl}/v1/account`, {
    headers: { authorization: `Bearer ${service.apiKey}` },
  });
  await service.signal('SIGTERM');
  return response.status;
}

/** What the failed start printed: one sentence naming the file, and no stack trace. */
async function startFailure(): Promise<string> {
  const failed = await service.start().then(
    () => null,
    (error: Error) => error.message,
  );
  expect(failed).not.toBeNull();
  const printed = failed ?? '';
  expect(printed).toContain('Cannot start the notes service: ');
  expect(printed).not.toMatch(/^\s+at /m);
  return printed;
}

describe('a damaged file in the data directory', () => {
  it('an empty local-credentials.json is moved aside and replaced, and the service starts', async () => {
    await writeFile(join(dataDir, 'local-credentials.json'), '');
    expect(await startAndReadAccount()).toBe(200);
    const files = await readdir(dataDir);
    expect(files.filter((name) => name.startsWith('local-credentials.json.damaged-'))).toHaveLength(1);
    expect(JSON.parse(await readFile(join(dataDir, 'local-credentials.json'), 'utf8'))).toMatchObject({
      access_key_id: expect.stringMatching(/^LK/),
    });
    expect(service.output()).toContain('local-credentials.json was damaged (it is empty)');
  }, 120_000);

  it('a garbled OAuth signing key stops the start, naming the file and what deleting it costs', async () => {
    const path = join(dataDir, 'oauth-signing-key.json');
    const key = await readFile(path, 'utf8');
    for (const garbled of [
      '{"kty":"EC","crv":"P-256","d":"garbled"',
      '{"kty":"EC","crv":"P-256","d":"AAAA"}',
    ]) {
      await writeFile(path, garbled);
      const printed = await startFailure();
      expect(printed).toContain(`${path}: the OAuth signing key is not`);
      expect(printed).toContain('will have to sign in again');
    }
    await writeFile(path, key);
    expect(await startAndReadAccount()).toBe(200);
  }, 120_000);

  it('a damaged database stops the start with the repair command, and after npm run db:repair the notes are back', async () => {
    const database = join(dataDir, 'dynamodb');
    const manifest = (await readFile(join(database, 'CURRENT'), 'utf8')).trim();
    await writeFile(join(database, manifest), Buffer.from('not a LevelDB manifest at all'));
    const printed = await startFailure();
    expect(printed).toContain(`${database}: the notes database is damaged (Corruption:`);
    expect(printed).toContain('npm run db:repair');

    const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'db:repair'], {
      cwd: REPO_ROOT,
      env: { ...process.env, NOTES_DATA_DIR: dataDir },
    });
    const repaired = JSON.parse(stdout) as { repaired: string; copy_before_repair: string };
    expect(repaired.repaired).toBe(database);
    expect(await readdir(repaired.copy_before_repair)).toContain(manifest);
    // The account and its key were in the database: the same key is accepted again.
    expect(await startAndReadAccount()).toBe(200);
  }, 180_000);
});

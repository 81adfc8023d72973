import { execFile } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/** Starts on the data directory, reads which account the first start's key belongs to, and stops. */
async function startAndReadAccountId(): Promise<string> {
  await service.start();
  const response = await fetch(`${service.baseUrl}/v1/account`, {
    headers: { authorization: `Bearer ${service.apiKey}` },
  });
  await service.signal('SIGTERM');
  expect(response.status).toBe(200);
  return ((await response.json()) as { account_id: string }).account_id;
}

/** What the failed start printed: one sentence naming the file, and no stack trace. */
async function startFailure(): Promise<string> {
  const failed = await service.start().then(
    // Started after all: stopped, so that it holds no database lock for the tests after this one.
    async () => {
      await service.signal('SIGTERM');
      return null;
    },
    (error: Error) => error.message,
  );
  expect(failed).not.toBeNull();
  const printed = failed ?? '';
  expect(printed).toContain('Cannot start the notes service: ');
  expect(printed).not.toMatch(/^\s+at /m);
  return printed;
}

describe('a damaged or missing local-account.json', () => {
  const accountPath = () => join(dataDir, 'local-account.json');
  const keyPath = () => join(dataDir, 'api-key');
  const exists = (path: string) =>
    access(path).then(
      () => true,
      () => false,
    );

  it.each([
    ['empty', '', 'it is empty'],
    ['garbage', '\u0000\u0017 not an account file', 'it is not JSON (garbled or cut short)'],
    ['cut short', '{\n  "account_id": "', 'it is not JSON (garbled or cut short)'],
    ['of the wrong shape', '["account_id"]', 'it names no account (no "account_id")'],
    ['missing', null, 'it is missing'],
  ])(
    'one that is %s is rebuilt from api-key: the same account, api-key untouched, and the start says so',
    async (_label, content, problem) => {
      const original = JSON.parse(await readFile(accountPath(), 'utf8')) as { account_id: string };
      const key = await readFile(keyPath(), 'utf8');
      if (content === null) await rm(accountPath());
      else await writeFile(accountPath(), content);

      const printedBefore = service.output().length;
      expect(await startAndReadAccountId()).toBe(original.account_id);
      expect(await readFile(keyPath(), 'utf8')).toBe(key);
      expect(JSON.parse(await readFile(accountPath(), 'utf8'))).toEqual(original);
      expect(service.output().slice(printedBefore)).toContain(
        `${accountPath()}: ${problem}; rebuilt from the key in ${keyPath()}, which is unchanged`,
      );
    },
    120_000,
  );

  it('a damaged one with no api-key beside it stops the start, naming the file, and makes no new account', async () => {
    const key = await readFile(keyPath(), 'utf8');
    const account = await readFile(accountPath(), 'utf8');
    await rename(keyPath(), `${keyPath()}.aside`);
    await writeFile(accountPath(), 'garbage');
    try {
      const printed = await startFailure();
      expect(printed).toContain(`${accountPath()}: it is not JSON`);
      expect(printed).toContain('delete it to start with a new, empty account');
      expect(await exists(keyPath())).toBe(false);
      expect(await readFile(accountPath(), 'utf8')).toBe('garbage');
    } finally {
      await rename(`${keyPath()}.aside`, keyPath());
      await writeFile(accountPath(), account);
    }
    expect(await readFile(keyPath(), 'utf8')).toBe(key);
    expect(await startAndReadAccount()).toBe(200);
  }, 120_000);

  it('a damaged one beside an api-key the database does not know stops the start and keeps both files as they are', async () => {
    const key = await readFile(keyPath(), 'utf8');
    const account = await readFile(accountPath(), 'utf8');
    const unknownKey = `svc_sk_${'A'.repeat(43)}\n`;
    await writeFile(keyPath(), unknownKey);
    await writeFile(accountPath(), '');
    try {
      const printed = await startFailure();
      expect(printed).toContain(
        `${accountPath()}: it is empty, and ${keyPath()} holds no key this database knows`,
      );
      expect(await readFile(keyPath(), 'utf8')).toBe(unknownKey);
      expect(await readFile(accountPath(), 'utf8')).toBe('');
    } finally {
      await writeFile(keyPath(), key);
      await writeFile(accountPath(), account);
    }
    expect(await startAndReadAccount()).toBe(200);
  }, 120_000);

  it('one naming an account the database does not hold stops the start, naming the file and the database, and keeps api-key', async () => {
    const original = await readFile(accountPath(), 'utf8');
    const key = await readFile(keyPath(), 'utf8');
    const missing = '00000000-0000-4000-8000-000000000000';
    await writeFile(accountPath(), JSON.stringify({ account_id: missing, key_id: 'key_0000000000000000' }));
    try {
      const printed = await startFailure();
      expect(printed).toContain(
        `${accountPath()}: it names account ${missing}, which the database in ${join(dataDir, 'dynamodb')} does not hold`,
      );
      expect(await readFile(keyPath(), 'utf8')).toBe(key);
    } finally {
      await writeFile(keyPath(), key);
      await writeFile(accountPath(), original);
    }
    expect(await startAndReadAccount()).toBe(200);
  }, 120_000);
});

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

  it('a CURRENT that names a missing MANIFEST stops the start with the database folder and the repair command, and npm run db:repair brings the notes back', async () => {
    const database = join(dataDir, 'dynamodb');
    await writeFile(join(database, 'CURRENT'), 'MANIFEST-999999\n');
    const printed = await startFailure();
    expect(printed).toContain(
      `${database}: the notes database cannot be opened (IO error: ${join(database, 'MANIFEST-999999')}`,
    );
    expect(printed).toContain('npm run db:repair');

    await promisify(execFile)('npm', ['run', '-s', 'db:repair'], {
      cwd: REPO_ROOT,
      env: { ...process.env, NOTES_DATA_DIR: dataDir },
    });
    expect(await startAndReadAccount()).toBe(200);
  }, 180_000);
});

import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAccount, hashApiKey } from '../domain/accounts.ts';
import { LOCAL_ACCOUNT_NAME } from '../oauth/pages.ts';
import type { AccountStore } from '../ports/account-store.ts';
import { damagedFile } from './start-up-problem.ts';

export const API_KEY_FILE = 'api-key';
const ACCOUNT_FILE = 'local-account.json';

/** What `local-account.json` holds: the account's ID, or why it is unusable. */
type AccountFile =
  | { state: 'missing' }
  | { state: 'damaged'; problem: string }
  | { state: 'valid'; accountId: string };

/**
 * On first start (neither `local-account.json` nor `api-key` exists) the local runtime creates one
 * account and key and saves the key under the data directory, readable by the owner only. Returns
 * the key only when it was created just now, so the caller prints it once.
 *
 * A missing or damaged `local-account.json` is rebuilt from `api-key` and the database, the key kept
 * as it is; when it cannot be, the start stops with a sentence naming the file. A new account is
 * never made in place of one the person has: its key would overwrite theirs.
 */
export async function ensureLocalAccount(
  store: AccountStore,
  dataDir: string,
  log: (line: string) => void = () => undefined,
): Promise<{ accountId: string; newApiKey: string | null }> {
  const accountPath = join(dataDir, ACCOUNT_FILE);
  const keyPath = join(dataDir, API_KEY_FILE);
  const file = await readAccountFile(accountPath);
  if (file.state === 'valid') {
    if (await store.getAccount(file.accountId)) return { accountId: file.accountId, newApiKey: null };
    throw damagedFile(
      accountPath,
      `it names account ${file.accountId}, which the database in ${join(dataDir, 'dynamodb')} does not hold`,
      `Restore that folder from a backup, or move ${accountPath} and ${keyPath} aside to start with a new, empty account`,
    );
  }
  const problem = file.state === 'missing' ? 'it is missing' : file.problem;
  const apiKey = await readApiKey(keyPath);
  if (apiKey === null) {
    if (file.state === 'missing') return createLocalAccount(store, accountPath, keyPath);
    throw damagedFile(
      accountPath,
      `${problem}, and there is no ${keyPath} to find the account by`,
      "Restore it and api-key from a backup, or delete it to start with a new, empty account (the old account's notes stay in the database, out of reach without its key)",
    );
  }
  const record = await store.getApiKeyByHash(hashApiKey(apiKey));
  if (!record || !(await store.getAccount(record.account_id))) {
    throw damagedFile(
      accountPath,
      `${problem}, and ${keyPath} holds no key this database knows`,
      `Restore both files (or the database folder) from a backup, or move ${keyPath} aside to start with a new, empty account`,
    );
  }
  await writeAccountFile(accountPath, record.account_id, record.key_id);
  log(`${accountPath}: ${problem}; rebuilt from the key in ${keyPath}, which is unchanged`);
  return { accountId: record.account_id, newApiKey: null };
}

async function createLocalAccount(
  store: AccountStore,
  accountPath: string,
  keyPath: string,
): Promise<{ accountId: string; newApiKey: string }> {
  const issued = await createAccount(store, LOCAL_ACCOUNT_NAME);
  // The key first: it exists nowhere else, and local-account.json can be rebuilt from it if the start
  // is cut short between the two writes.
  await writeOwnerOnly(keyPath, `${issued.api_key}\n`);
  await writeAccountFile(accountPath, issued.account.account_id, issued.key_id);
  return { accountId: issued.account.account_id, newApiKey: issued.api_key };
}

async function readAccountFile(path: string): Promise<AccountFile> {
  const text = await readOrNull(path);
  if (text === null) return { state: 'missing' };
  if (text.trim() === '') return { state: 'damaged', problem: 'it is empty' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { state: 'damaged', problem: 'it is not JSON (garbled or cut short)' };
  }
  const accountId = (json as { account_id?: unknown } | null)?.account_id;
  if (typeof accountId !== 'string' || accountId.trim() === '') {
    return { state: 'damaged', problem: 'it names no account (no "account_id")' };
  }
  return { state: 'valid', accountId };
}

/** The key in `api-key`, or null when there is no such file. */
async function readApiKey(path: string): Promise<string | null> {
  return (await readOrNull(path))?.trim() ?? null;
}

/** The file's text, or null when it does not exist; one that cannot be read stops the start. */
async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw damagedFile(
      path,
      `it cannot be read (${code ?? 'error'})`,
      'Make it readable by you, or restore it from a backup',
    );
  }
}

async function writeAccountFile(path: string, accountId: string, keyId: string): Promise<void> {
  await writeOwnerOnly(path, `${JSON.stringify({ account_id: accountId, key_id: keyId }, null, 2)}\n`);
}

export async function writeOwnerOnly(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file.
  await chmod(path, 0o600);
}

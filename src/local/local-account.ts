import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAccount } from '../domain/accounts.ts';
import { LOCAL_ACCOUNT_NAME } from '../oauth/pages.ts';
import type { AccountStore } from '../ports/account-store.ts';

export const API_KEY_FILE = 'api-key';
const ACCOUNT_FILE = 'local-account.json';

/**
 * On first start the local runtime creates one account and key and saves the key under the data
 * directory, readable by the owner only. Returns the key only when it was created just now, so the
 * caller prints it once.
 */
export async function ensureLocalAccount(
  store: AccountStore,
  dataDir: string,
): Promise<{ accountId: string; newApiKey: string | null }> {
  const existing = await readAccountFile(dataDir);
  if (existing && (await store.getAccount(existing.account_id)))
    return { accountId: existing.account_id, newApiKey: null };
  const issued = await createAccount(store, LOCAL_ACCOUNT_NAME);
  await writeOwnerOnly(join(dataDir, API_KEY_FILE), `${issued.api_key}\n`);
  await writeOwnerOnly(
    join(dataDir, ACCOUNT_FILE),
    `${JSON.stringify({ account_id: issued.account.account_id, key_id: issued.key_id }, null, 2)}\n`,
  );
  return { accountId: issued.account.account_id, newApiKey: issued.api_key };
}

async function readAccountFile(dataDir: string): Promise<{ account_id: string } | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, ACCOUNT_FILE), 'utf8')) as { account_id: string };
  } catch {
    return null;
  }
}

export async function writeOwnerOnly(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file.
  await chmod(path, 0o600);
}

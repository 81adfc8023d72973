/**
 * `npm run account:create -- --name <name>`: creates an account in the local data directory
 * (NOTES_DATA_DIR) and prints `{ "account_id", "api_key" }` as JSON. Works whether or not the local
 * runtime is running: the database allows one process only, so a running runtime's is used.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoAccountStore } from '../../adapters/dynamodb/account-store.ts';
import { createDocumentClient } from '../../adapters/dynamodb/client.ts';
import { createAccount } from '../../domain/accounts.ts';
import { localAwsClientConfig, startEmulators } from '../emulators.ts';
import type { RuntimeInfo } from '../runtime.ts';

const { values } = parseArgs({ options: { name: { type: 'string' } } });
const name = values.name?.trim();
if (!name) {
  console.error('usage: npm run account:create -- --name <name>');
  process.exit(2);
}
const dataDir = resolve(process.env.NOTES_DATA_DIR ?? '.notes-data');

const running = await runningRuntime(dataDir);
const emulators = running
  ? null
  : await startEmulators({
      dataDir,
      storagePort: 0,
      queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
      log: () => undefined,
    });
const endpoint = running?.endpoints.dynamodb ?? (emulators?.endpoints.dynamodb as string);
const tableName = running?.table_name ?? (emulators?.tableName as string);
try {
  const store = new DynamoAccountStore(createDocumentClient(localAwsClientConfig(endpoint)), tableName);
  const issued = await createAccount(store, name);
  process.stdout.write(
    `${JSON.stringify({ account_id: issued.account.account_id, api_key: issued.api_key })}\n`,
  );
} finally {
  await emulators?.stop();
}

async function runningRuntime(dir: string): Promise<RuntimeInfo | null> {
  try {
    const info = JSON.parse(await readFile(join(dir, 'runtime.json'), 'utf8')) as RuntimeInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}

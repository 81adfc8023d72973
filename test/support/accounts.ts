import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { DynamoAccountStore } from '../../src/adapters/dynamodb/account-store.ts';
import { createDocumentClient } from '../../src/adapters/dynamodb/client.ts';
import { localAwsClientConfig } from '../../src/local/emulators.ts';
import type { RunningService } from './local-runtime.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** Creates another account through the operator command (`npm run account:create`), as a user would. */
export async function createAccount(
  service: RunningService,
  name: string,
): Promise<{ account_id: string; api_key: string }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', resolve(REPO_ROOT, 'src/local/cli/create-account.ts'), '--name', name],
    { cwd: REPO_ROOT, env: { ...process.env, NOTES_DATA_DIR: service.dataDir } },
  );
  return JSON.parse(stdout) as { account_id: string; api_key: string };
}

/** The account store of a running service, reached through its published DynamoDB endpoint. */
export function accountStore(service: RunningService): DynamoAccountStore {
  return new DynamoAccountStore(
    createDocumentClient(localAwsClientConfig(service.info.endpoints.dynamodb)),
    service.info.table_name,
  );
}

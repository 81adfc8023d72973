import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import type { RunningService } from './local-runtime.ts';

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

/** Revokes a key through the operator command (`npm run key:revoke`). */
export async function revokeKey(service: RunningService, accountId: string, keyId: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      resolve(REPO_ROOT, 'src/local/cli/revoke-key.ts'),
      '--account',
      accountId,
      '--key',
      keyId,
    ],
    { cwd: REPO_ROOT, env: { ...process.env, NOTES_DATA_DIR: service.dataDir } },
  );
}

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { localAwsClientConfig } from '../../adapters/aws-client-config.ts';
import { DynamoAccountStore } from '../../adapters/dynamodb/account-store.ts';
import { createDocumentClient } from '../../adapters/dynamodb/client.ts';
import { DynamoOAuthStore } from '../../adapters/dynamodb/oauth-store.ts';
import { OAuthSessions } from '../../oauth/sessions.ts';
import type { SessionStore } from '../../ports/session-store.ts';
import { startEmulators } from '../emulators.ts';
import { readLocalCredentials } from '../local-credentials.ts';
import type { RuntimeInfo } from '../runtime.ts';

export const localDataDir = () => resolve(process.env.NOTES_DATA_DIR ?? '.notes-data');

/**
 * Runs `work` against the account store of the local data directory. The database admits one process
 * at a time, so a running runtime's database is used through its published endpoint; otherwise the
 * stand-ins are started just for this.
 */
export async function withLocalAccountStore<T>(
  dataDir: string,
  work: (store: DynamoAccountStore, sessions: SessionStore) => Promise<T>,
): Promise<T> {
  const running = await runningRuntime(dataDir);
  const emulators = running
    ? null
    : await startEmulators({
        dataDir,
        storagePort: 0,
        queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
        log: () => undefined,
      });
  try {
    const endpoint = running?.endpoints.dynamodb ?? emulators?.endpoints.dynamodb;
    const tableName = running?.table_name ?? emulators?.tableName;
    if (!endpoint || !tableName) throw new Error('no database endpoint');
    const db = createDocumentClient(localAwsClientConfig(endpoint, await readLocalCredentials(dataDir)));
    return await work(
      new DynamoAccountStore(db, tableName),
      new OAuthSessions(new DynamoOAuthStore(db, tableName)),
    );
  } finally {
    await emulators?.stop();
  }
}

/** The runtime running on this data directory, if any. */
export async function runningRuntime(dataDir: string): Promise<RuntimeInfo | null> {
  try {
    const info = JSON.parse(await readFile(join(dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRuntime, type LocalRuntimeOptions, startLocalRuntime } from '../../src/local/runtime.ts';
import { createAccount } from './accounts.ts';
import { type Api, client } from './api.ts';

export interface InProcessService {
  runtime: LocalRuntime;
  dataDir: string;
  /** A client with the local account's key. */
  api: Api;
  /** A client of a new, separate account (created with the operator command). */
  otherAccount(name: string): Promise<Api>;
  stop(): Promise<void>;
}

/**
 * The local runtime in the test's own process, on free ports and a temporary data directory, for
 * tests that reach into the worker's services (swap an engine, play a failing worker). Tests that
 * only speak HTTP use startService (a child process, as `npm start`).
 */
export async function startInProcess(
  options: Partial<
    Pick<
      LocalRuntimeOptions,
      | 'workers'
      | 'workersInProcess'
      | 'visibilityTimeoutSeconds'
      | 'maxReceiveCount'
      | 'storageCorsOrigins'
      | 'emulatorsInProcess'
    >
  > = {},
): Promise<InProcessService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'notes-in-process-'));
  const runtime = await startLocalRuntime({
    dataDir,
    port: 0,
    storagePort: 0,
    log: () => undefined,
    ...options,
  });
  const apiKey = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
  return {
    runtime,
    dataDir,
    api: client(runtime.apiUrl, apiKey),
    async otherAccount(name) {
      // The runtime runs in this process, so the command reaches its database through the endpoint.
      const account = await createAccount(
        { dataDir, info: runtime.info } as Parameters<typeof createAccount>[0],
        name,
      );
      return client(runtime.apiUrl, account.api_key);
    },
    async stop() {
      await runtime.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

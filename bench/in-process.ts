/** The local runtime inside the benchmark's own process, for benchmarks that reach into its services. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../src/wiring/services.ts';

export interface InProcessRuntime {
  apiUrl: string;
  apiKey: string;
  services: Services;
  stop(): Promise<void>;
}

/** On free loopback ports and a fresh data directory (removed by stop), without workers. */
export async function startInProcessRuntime(name: string): Promise<InProcessRuntime> {
  // The runtime runs in this process: its request logs would bury the table.
  process.env.NOTES_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // Imported once the environment is set: configuration is read when they load.
  const { startLocalRuntime } = await import('../src/local/runtime.ts');
  const { getServices } = await import('../src/wiring/services.ts');
  const dataDir = await mkdtemp(join(tmpdir(), `notes-bench-${name}-`));
  const runtime = await startLocalRuntime({
    dataDir,
    port: 0,
    storagePort: 0,
    workers: false,
    log: () => undefined,
  });
  return {
    apiUrl: runtime.apiUrl,
    apiKey: (await readFile(join(dataDir, 'api-key'), 'utf8')).trim(),
    services: getServices(),
    async stop() {
      await runtime.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

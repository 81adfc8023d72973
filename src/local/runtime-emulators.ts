/**
 * Starts the local runtime's emulators, in their own thread unless a test keeps them in-process. A
 * module of its own, light to import: `npm start` (bin/local-server.ts) starts the emulators' thread
 * before it imports the runtime's modules, so that the two load at once (docs/benchmarks.md,
 * "Start-up"); src/local/runtime.ts calls it when it was given no emulators already starting.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { EmulatorOptions, Emulators } from './emulators.ts';
import { startEmulatorsInThread } from './emulators-in-thread.ts';
import { DEFAULT_LISTEN_HOST } from './public-addresses.ts';
import type { LocalRuntimeOptions } from './runtime.ts';

/** Messages must outlive the longest transcription, or one is redelivered while still worked on. */
const DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 3600;
const DEFAULT_MAX_RECEIVE_COUNT = 3;

export type RuntimeEmulatorOptions = Pick<
  LocalRuntimeOptions,
  | 'dataDir'
  | 'storagePort'
  | 'host'
  | 'visibilityTimeoutSeconds'
  | 'maxReceiveCount'
  | 'log'
  | 'storageCorsOrigins'
  | 'emulatorsInProcess'
>;

export async function startRuntimeEmulators(options: RuntimeEmulatorOptions): Promise<Emulators> {
  const dataDir = resolve(options.dataDir);
  // Made here, owner-only, before the emulators create their directories in it (which would make it
  // with the default mode on a first start).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const emulatorOptions: EmulatorOptions = {
    dataDir,
    storagePort: options.storagePort,
    host: options.host ?? DEFAULT_LISTEN_HOST,
    queue: {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
      maxReceiveCount: options.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT,
    },
    ...(options.log ? { log: options.log } : {}),
    ...(options.storageCorsOrigins ? { corsOrigins: options.storageCorsOrigins } : {}),
  };
  if (!options.emulatorsInProcess) return startEmulatorsInThread(emulatorOptions);
  // Only tests run them in-process: the emulators' packages load on this thread then.
  const { startEmulatorsHere } = await import('./emulators.ts');
  return startEmulatorsHere(emulatorOptions);
}

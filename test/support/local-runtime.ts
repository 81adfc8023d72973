import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { npmStartNodeArgs } from '../../scripts/start-command.mjs';
import type { RuntimeInfo } from '../../src/local/runtime.ts';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { keepServiceLog } from './service-logs.ts';

export interface RunningService {
  baseUrl: string;
  apiKey: string;
  dataDir: string;
  info: RuntimeInfo;
  /** Everything the service process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
  /** Stops the process (SIGTERM, or `kill -9` with SIGKILL) and starts it again on the same data directory. */
  restart(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Sends a signal and resolves when the process has exited, with how it ended. */
  signal(signal: 'SIGTERM' | 'SIGKILL'): Promise<{ code: number | null; signal: string | null }>;
  /** Starts the process again on the same data directory after it was stopped. */
  start(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a data directory (persistence tests); by default a fresh temporary one. */
  dataDir?: string;
  /** The Node binary that runs the service; by default this process's. */
  node?: string;
  /**
   * How the service is launched: `sources` (default) runs bin/local-server.ts through tsx, as tests
   * always have; `npm-start` runs what `npm start` runs (scripts/start.mjs: the dependency check, then
   * the start-up bundle when it is current, else the sources).
   */
  launcher?: 'sources' | 'npm-start';
}

/**
 * This process's environment without the public URLs: an in-process runtime that ran in this test
 * process earlier set NOTES_PUBLIC_URL to its own address (for its handlers, as on Lambda), which a
 * child service would take as the address it is reached at (src/local/public-addresses.ts).
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  const { NOTES_PUBLIC_URL: _api, NOTES_STORAGE_PUBLIC_URL: _storage, ...inherited } = process.env;
  return inherited;
}

/**
 * Starts the real local runtime (`bin/local-server.ts`) as a child process on free ports, exactly as
 * `npm start` does, and waits until it has published its runtime.json.
 */
export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'notes-test-')));
  let output = '';
  let child: ChildProcess;
  let info: RuntimeInfo;

  const launch = async () => {
    child = spawn(
      options.node ?? process.execPath,
      options.launcher === 'npm-start'
        ? npmStartNodeArgs(REPO_ROOT)
        : ['--import', 'tsx', join(REPO_ROOT, 'bin', 'local-server.ts')],
      {
        cwd: REPO_ROOT,
        env: {
          ...inheritedEnv(),
          PORT: '0',
          NOTES_STORAGE_PORT: '0',
          NOTES_DATA_DIR: dataDir,
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    info = await waitForRuntimeInfo(dataDir, child, () => output);
  };
  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    // This process, not whichever `child` is current when a timer fires (a restart replaces it).
    const running = child;
    if (running.exitCode !== null || running.signalCode !== null) {
      return { code: running.exitCode, signal: running.signalCode as string | null };
    }
    const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
      running.once('exit', (code, endedBy) => done({ code, signal: endedBy })),
    );
    running.kill(signal);
    const overdue = setTimeout(() => running.kill('SIGKILL'), 30_000);
    try {
      return await exited;
    } finally {
      clearTimeout(overdue);
    }
  };

  await launch();
  const forgetLog = keepServiceLog({ label: `the service in ${dataDir}`, output: () => output });
  const apiKey = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
  const service: RunningService = {
    get baseUrl() {
      return info.api_url;
    },
    apiKey,
    dataDir,
    get info() {
      return info;
    },
    output: () => output,
    stop: async () => {
      await stop();
      forgetLog();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
    restart: async (signal = 'SIGTERM') => {
      await stop(signal);
      await launch();
    },
    signal: (signal) => stop(signal),
    start: () => launch(),
  };
  return service;
}

async function waitForRuntimeInfo(
  dataDir: string,
  child: ChildProcess,
  output: () => string,
): Promise<RuntimeInfo> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`local runtime exited early:\n${output()}`);
    try {
      const info = JSON.parse(await readFile(join(dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
      if (info.pid === child.pid) return info;
    } catch {
      // not written yet
    }
    await sleep(100);
  }
  throw new Error(`local runtime did not start within 60 s:\n${output()}`);
}

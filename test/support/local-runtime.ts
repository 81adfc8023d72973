import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeInfo } from '../../src/local/runtime.ts';
import { REPO_ROOT } from '../../src/local/runtime.ts';

export interface RunningService {
  baseUrl: string;
  apiKey: string;
  dataDir: string;
  info: RuntimeInfo;
  /** Everything the service process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
  /** Stops the process and starts it again on the same data directory. */
  restart(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a data directory (persistence tests); by default a fresh temporary one. */
  dataDir?: string;
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
    child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bin', 'local-server.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: '0', NOTES_STORAGE_PORT: '0', NOTES_DATA_DIR: dataDir, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    info = await waitForRuntimeInfo(dataDir, child, () => output);
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
    await exited;
  };

  await launch();
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
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
    restart: async () => {
      await stop();
      await launch();
    },
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

/** What the benchmarks share: the service in a child process, a tiny API client, recordings. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { npmStartNodeArgs } from '../scripts/start-command.mjs';
import { ensureConversations } from '../test/fixtures/conversations/generate.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..');
export const OUT_DIR = join(REPO_ROOT, 'bench', 'out');
const run = promisify(execFile);

export interface ApiResponse {
  status: number;
  body: Record<string, unknown>;
}

export interface Service {
  apiUrl: string;
  apiKey: string;
  /** The service's process, root of the tree where its recognisers run. */
  pid: number;
  api(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  stop(): Promise<void>;
}

/**
 * Starts the service as `npm start` runs it, in its own process, on free loopback ports and a fresh
 * temporary data directory: `node`, the flags of package.json's `start` script, scripts/start.mjs,
 * which runs the start-up bundle (made first if a source changed, so every run measures the same
 * code users run on a second start). With BENCH_CPU_PROF=1 it runs the sources through tsx instead
 * and writes a V8 CPU profile to bench/out/profiles/ when it stops: a profile of the bundle would
 * not tell which package a function came from (bench/profile-breakdown.ts). Its JSON logs go to
 * bench/out/<name>-service.log. `root`: another checkout's service (bench/get-note-side-by-side.ts
 * compares two).
 */
export async function startService(name: string, root = REPO_ROOT): Promise<Service> {
  const dataDir = await mkdtemp(join(tmpdir(), `notes-bench-${name}-`));
  await mkdir(OUT_DIR, { recursive: true });
  const log = await open(join(OUT_DIR, `${name}-service.log`), 'w');
  const args = process.env.BENCH_CPU_PROF
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${join(OUT_DIR, 'profiles')}`,
        '--import',
        'tsx',
        join(root, 'bin', 'local-server.ts'),
      ]
    : await npmStartWithFreshBundle(root);
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', NOTES_STORAGE_PORT: '0', NOTES_DATA_DIR: dataDir },
    stdio: ['ignore', log.fd, log.fd],
  });
  const stop = async () => {
    await stopChild(child);
    await log.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const apiUrl = await waitForApiUrl(dataDir, child, name);
    if (!process.env.BENCH_CPU_PROF) await ensureRanItsBundle(name);
    const apiKey = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
    const api = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
      const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${apiUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : {} };
    };
    return { apiUrl, apiKey, pid: child.pid ?? 0, api, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `npm start`'s Node arguments in `root`, once its start-up bundle is fresh: made now, by that
 * checkout's own bundler run as `npm start` runs it in the background, if a source changed.
 */
async function npmStartWithFreshBundle(root: string): Promise<string[]> {
  await run(process.execPath, [join(root, 'scripts', 'local-server-bundle.mjs')], { cwd: root });
  return npmStartNodeArgs(root);
}

/** The launcher says when it runs the sources instead of the bundle (scripts/start.mjs). */
async function ensureRanItsBundle(name: string): Promise<void> {
  const said = await readFile(join(OUT_DIR, `${name}-service.log`), 'utf8');
  if (said.includes('no start-up bundle')) {
    throw new Error(
      `the service ran its sources, not the start-up bundle: see bench/out/${name}-service.log`,
    );
  }
}

async function waitForApiUrl(dataDir: string, child: ChildProcess, name: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the service exited early: see bench/out/${name}-service.log`);
    try {
      const info = JSON.parse(await readFile(join(dataDir, 'runtime.json'), 'utf8'));
      if (info.pid === child.pid) return info.api_url as string;
    } catch {
      // not written yet
    }
    await sleep(100);
  }
  throw new Error(`the service did not start within 60 s: see bench/out/${name}-service.log`);
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** submitTranscription, then PUT the bytes to the presigned URL, as a client does. */
export async function submitAndUpload(service: Service, noteId: string, file: string, title: string) {
  const { size } = await stat(file);
  const submitted = await service.api('POST', `/v1/notes/${noteId}/transcription`, {
    title,
    content_type: 'audio/wav',
    size_bytes: size,
  });
  if (submitted.status !== 202)
    throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const upload = submitted.body.upload as { url: string; method: string; headers: Record<string, string> };
  const put = await fetch(upload.url, {
    method: upload.method,
    headers: upload.headers,
    body: await readFile(file),
  });
  if (!put.ok) throw new Error(`upload: ${put.status}`);
}

/** Polls getTranscription at least `intervalMs` apart until it is no longer 202. */
export async function pollTranscription(
  service: Service,
  noteId: string,
  deadlineMs = 600_000,
  intervalMs = 2_000,
) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const response = await service.api('GET', `/v1/notes/${noteId}/transcription`);
    if (response.status !== 202) {
      if (response.status !== 200)
        throw new Error(`transcription: ${response.status} ${JSON.stringify(response.body)}`);
      return response;
    }
    if (Date.now() > deadline) throw new Error(`transcription still pending after ${deadlineMs / 1000} s`);
    await sleep(intervalMs);
  }
}

/** Speaks `text` with flite's slt voice into a 16 kHz mono WAV; returns its duration in seconds. */
export async function synthesize(text: string, file: string): Promise<number> {
  const textFile = `${file}.txt`;
  await writeFile(textFile, text);
  await run('flite', ['-voice', 'slt', '-f', textFile, '-o', file]);
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  return Number(stdout.trim());
}

/** The value after `name` in `argv` (`--minutes 20`), if any. */
export function cliOption(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

/** The `p` quantile (0..1) of ascending `sorted` values, NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

/**
 * The median of the finite `values` (the mean of the middle two when even), NaN when there are none
 * (a NaN in a sort by `a - b` would leave the order undefined).
 */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** `source` looped (no re-encoding) to exactly `minutes`, written to `out` once and reused after. */
export async function loopRecording(source: string, minutes: number, out: string): Promise<string> {
  if (
    await stat(out).then(
      () => true,
      () => false,
    )
  )
    return out;
  await mkdir(dirname(out), { recursive: true });
  const partial = `${out}.partial.wav`;
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-stream_loop', '-1', '-i', source],
    ...['-t', String(minutes * 60), '-c', 'copy', partial],
  ]);
  await rename(partial, out);
  return out;
}

/** The two-speaker flite conversation of the test fixtures, looped to `minutes`; cached in bench/out. */
export async function twoVoiceRecording(minutes: number): Promise<string> {
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('no two-speakers conversation fixture');
  return loopRecording(conversation.audio, minutes, join(OUT_DIR, `two-voices-${minutes}min.wav`));
}

/**
 * `npm run bench -- start [--runs N]`: how long `npm start` takes to answer on a second start (the
 * data directory already made), next to a bare Node HTTP server started in the same run.
 *
 * Both are timed from spawn to the first answered request, polling every 2 ms: the bare server
 * (bench/baseline-server.ts, stripped of its types once so plain `node` runs it) and `npm start`
 * exactly as a user runs it (through npm, so scripts/ensure-deps.mjs counts), to its first answer
 * of any kind and to the first 200 of GET /v1/account with the data directory's key; and, to show
 * what npm itself costs, the same bare server started by `npm start` of a package that holds only
 * it (a temporary directory). Runs alternate
 * between the two so that other work on the machine weighs on both alike. Where the time goes comes
 * from the service itself: with NOTES_START_TRACE it writes the performance marks of its start-up
 * phases and when its process began (bin/local-server.ts), placed here on the same clock as the spawn.
 * Last, the edit-and-restart loop: a start right after a source was saved (bin/local-server.ts's
 * modification time set to now, its content untouched), which runs the sources through tsx while
 * the bundle is made again in the background; each waits for that bundle before the next.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { transform } from 'esbuild';
import {
  currentBundle,
  freshBundle,
  LOCAL_SERVER_EXTERNAL,
  localServerEntryPoints,
} from '../scripts/local-server-bundle.mjs';
import { isAlive } from '../test/support/processes.ts';
import { cliOption, median, OUT_DIR, REPO_ROOT } from './support.ts';

const DEFAULT_RUNS = 5;
/** Starts after an edit: each bundles again (about a second), so fewer. */
const EDIT_RUNS = 3;
const BUNDLE_DEADLINE_MS = 180_000;
const POLL_MS = 2;
const START_DEADLINE_MS = 120_000;

export interface StartRun {
  /** Spawn to the first answer of any route (any status). */
  first_answer_ms: number;
  /** Spawn to the first 200 of an authenticated request (the bare server: its first answer). */
  first_ok_ms: number;
}

export interface Phase {
  name: string;
  /** Median time from spawn to the end of the phase. */
  ends_at_ms: number;
  /** From the median end of the phase before (or the spawn). */
  since_previous_ms: number;
}

export interface StartResult {
  runs: number;
  baseline: StartRun[];
  npm_start: StartRun[];
  /** The bare server started through `npm start`: the floor npm sets. */
  baseline_through_npm: StartRun[];
  /** npm start right after a source file was saved. */
  after_edit: StartRun[];
  median: { baseline: StartRun; baseline_through_npm: StartRun; npm_start: StartRun; after_edit: StartRun };
  /** npm start's median over the bare server's median. */
  ratio: { first_answer: number; first_ok: number; baseline_through_npm: number };
  phases: Phase[];
}

interface Trace {
  time_origin: number;
  marks: Array<{ name: string; at_ms: number }>;
}

/** Milliseconds since the epoch, on the clock the child's performance.timeOrigin uses. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

export async function startBench(argv: readonly string[]): Promise<StartResult> {
  const runs = Number(cliOption(argv, '--runs') ?? DEFAULT_RUNS);
  await mkdir(OUT_DIR, { recursive: true });
  const baselineScript = await plainBaselineServer();
  // Measured: starts from a fresh bundle (sources edited before the bench would make the first start
  // bundle them in the background while later ones are timed).
  await freshBundle({
    root: REPO_ROOT,
    entryPoints: () => localServerEntryPoints(REPO_ROOT),
    external: LOCAL_SERVER_EXTERNAL,
  });
  const baselinePackage = await mkdtemp(join(tmpdir(), 'notes-bench-bare-package-'));
  await writeFile(
    join(baselinePackage, 'package.json'),
    JSON.stringify({ name: 'bare-server', private: true, scripts: { start: `exec node ${baselineScript}` } }),
  );
  const dataDir = await mkdtemp(join(tmpdir(), 'notes-bench-start-'));
  const traceFile = join(dataDir, 'start-trace.json');
  try {
    // The first start makes the data directory (tables, bucket, account, key); it is not what is measured.
    await timeNpmStart(dataDir, traceFile, null);
    const apiKey = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
    const baseline: StartRun[] = [];
    const npmStart: StartRun[] = [];
    const baselineThroughNpm: StartRun[] = [];
    const traces: Array<{ spawned: number; trace: Trace; run: StartRun }> = [];
    for (let run = 0; run < runs; run++) {
      baseline.push(await timeBaseline(baselineScript, null));
      baselineThroughNpm.push(await timeBaseline(baselineScript, baselinePackage));
      const measured = await timeNpmStart(dataDir, traceFile, apiKey);
      npmStart.push(measured.run);
      traces.push(measured);
      console.log(
        `  run ${run + 1}/${runs}: bare server ${baseline.at(-1)?.first_answer_ms} ms (through npm ${baselineThroughNpm.at(-1)?.first_answer_ms} ms), npm start ${measured.run.first_answer_ms} ms (first answer) / ${measured.run.first_ok_ms} ms (first 200)`,
      );
    }
    const afterEdit: StartRun[] = [];
    for (let run = 0; run < Math.min(runs, EDIT_RUNS); run++) {
      const now = new Date();
      await utimes(join(REPO_ROOT, 'bin', 'local-server.ts'), now, now);
      afterEdit.push((await timeNpmStart(dataDir, traceFile, apiKey)).run);
      console.log(`  after an edit ${run + 1}: npm start ${afterEdit.at(-1)?.first_ok_ms} ms (first 200)`);
      await untilBundled();
    }
    const median = {
      baseline: medianRun(baseline),
      baseline_through_npm: medianRun(baselineThroughNpm),
      npm_start: medianRun(npmStart),
      after_edit: medianRun(afterEdit),
    };
    return {
      runs,
      baseline,
      npm_start: npmStart,
      baseline_through_npm: baselineThroughNpm,
      after_edit: afterEdit,
      median,
      ratio: {
        first_answer: round(median.npm_start.first_answer_ms / median.baseline.first_answer_ms, 2),
        first_ok: round(median.npm_start.first_ok_ms / median.baseline.first_ok_ms, 2),
        baseline_through_npm: round(
          median.baseline_through_npm.first_answer_ms / median.baseline.first_answer_ms,
          2,
        ),
      },
      phases: phasesOf(traces),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(baselinePackage, { recursive: true, force: true });
  }
}

/** Waits for the bundle the start made in the background (the bench leaves nothing running). */
async function untilBundled(): Promise<void> {
  const deadline = Date.now() + BUNDLE_DEADLINE_MS;
  while (!currentBundle({ root: REPO_ROOT })) {
    if (Date.now() > deadline) throw new Error('the start-up bundle was not made again in time');
    await sleep(200);
  }
}

/** bench/baseline-server.ts with its types stripped, so that plain `node` runs it (no loader). */
async function plainBaselineServer(): Promise<string> {
  const source = await readFile(join(REPO_ROOT, 'bench', 'baseline-server.ts'), 'utf8');
  const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20' });
  const file = join(OUT_DIR, 'baseline-server.mjs');
  await writeFile(file, code);
  return file;
}

/**
 * The bare server, run by `node`, or with `npmPackage` by `npm start` there (npm's banner comes
 * first on stdout, the port last). npm gets its own process group, stopped as a whole.
 */
async function timeBaseline(script: string, npmPackage: string | null): Promise<StartRun> {
  const spawned = now();
  const child = npmPackage
    ? spawn('npm', ['start'], { cwd: npmPackage, detached: true, stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let printed = '';
    let port: string | undefined;
    while (!port) {
      const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
      printed += chunk.toString();
      port = printed.match(/^(\d+)$/m)?.[1];
    }
    const answer = await firstAnswer(`http://127.0.0.1:${port}/`, {}, 200, child);
    const first = round(answer.first - spawned);
    return { first_answer_ms: first, first_ok_ms: round(answer.ok - spawned) };
  } finally {
    if (npmPackage && child.pid !== undefined && child.exitCode === null) {
      const exited = once(child, 'exit');
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    } else {
      await stop(child, null);
    }
  }
}

/**
 * `npm start` on `dataDir`, timed to its first answer and (with `apiKey`) the first 200 of
 * GET /v1/account; without a key, to runtime.json (a first start). Stopped as Ctrl-C would, and
 * waited for until its runtime process has gone (the database allows one process at a time).
 */
async function timeNpmStart(
  dataDir: string,
  traceFile: string,
  apiKey: string | null,
): Promise<{ spawned: number; trace: Trace; run: StartRun }> {
  await rm(traceFile, { force: true });
  await rm(join(dataDir, 'runtime.json'), { force: true });
  const port = await freePort();
  const spawned = now();
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      NOTES_STORAGE_PORT: '0',
      NOTES_DATA_DIR: dataDir,
      NOTES_START_TRACE: traceFile,
    },
  });
  let runtimePid: number | null = null;
  try {
    const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    const answer = apiKey
      ? await firstAnswer(`http://127.0.0.1:${port}/v1/account`, headers, 200, child)
      : await untilFile(join(dataDir, 'runtime.json'), child);
    const trace = await untilTrace(traceFile, child);
    runtimePid = (JSON.parse(await readFile(join(dataDir, 'runtime.json'), 'utf8')) as { pid: number }).pid;
    return {
      spawned,
      trace,
      run: { first_answer_ms: round(answer.first - spawned), first_ok_ms: round(answer.ok - spawned) },
    };
  } finally {
    await stop(child, runtimePid);
  }
}

/** Polls `url` until it answers with `okStatus`: when it first answered at all, and when with that status. */
async function firstAnswer(
  url: string,
  headers: Record<string, string>,
  okStatus: number,
  child: ChildProcess,
): Promise<{ first: number; ok: number }> {
  let first: number | null = null;
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before answering`);
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      const at = now();
      first ??= at;
      if (response.status === okStatus) return { first, ok: at };
    } catch {
      // Not listening yet.
    }
    await sleep(POLL_MS);
  }
  throw new Error(`${url} did not answer ${okStatus} within ${START_DEADLINE_MS / 1000} s`);
}

async function untilFile(file: string, child: ChildProcess): Promise<{ first: number; ok: number }> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}) before starting`);
    if (
      await readFile(file).then(
        () => true,
        () => false,
      )
    ) {
      const at = now();
      return { first: at, ok: at };
    }
    await sleep(POLL_MS * 10);
  }
  throw new Error(`npm start did not write ${file} within ${START_DEADLINE_MS / 1000} s`);
}

async function untilTrace(file: string, child: ChildProcess): Promise<Trace> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text) return JSON.parse(text) as Trace;
    if (child.exitCode !== null) throw new Error('npm start exited before writing its start-up trace');
    await sleep(POLL_MS * 10);
  }
  throw new Error('npm start wrote no start-up trace (NOTES_START_TRACE)');
}

/**
 * SIGTERM, as Ctrl-C would be (npm passes it on to the service), then waits for the service's own
 * process to be gone too.
 */
async function stop(child: ChildProcess, runtimePid: number | null): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const overdue = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(overdue);
  }
  const deadline = Date.now() + 30_000;
  while (runtimePid !== null && (await isAlive(runtimePid)) && Date.now() < deadline) await sleep(20);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * The phases in the order they end, each mark placed on the bench's clock: the process's own start
 * (before it, npm and whatever runs before node, e.g. the dependency check in its own process), then
 * the marks, then the first answer and first 200 seen by the client.
 */
function phasesOf(traces: ReadonlyArray<{ spawned: number; trace: Trace; run: StartRun }>): Phase[] {
  const timelines = traces.map(({ spawned, trace, run }) => [
    { name: 'node process of the service began', at: trace.time_origin - spawned },
    ...trace.marks.map(({ name, at_ms }) => ({ name, at: trace.time_origin + at_ms - spawned })),
    { name: 'first answer (client)', at: run.first_answer_ms },
    { name: 'first 200 (client)', at: run.first_ok_ms },
  ]);
  const names = timelines[0]?.map(({ name }) => name) ?? [];
  const ends = names
    .map((name) => ({
      name,
      at: median(
        timelines.map((timeline) => timeline.find((point) => point.name === name)?.at ?? Number.NaN),
      ),
    }))
    .sort((a, b) => a.at - b.at);
  return ends.map(({ name, at }, index) => ({
    name,
    ends_at_ms: round(at),
    since_previous_ms: round(at - (ends[index - 1]?.at ?? 0)),
  }));
}

function medianRun(runs: readonly StartRun[]): StartRun {
  return {
    first_answer_ms: round(median(runs.map((run) => run.first_answer_ms))),
    first_ok_ms: round(median(runs.map((run) => run.first_ok_ms))),
  };
}

function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function startTable(result: StartResult): string {
  const { baseline, npm_start } = result.median;
  const rows = [
    `| | first answer (median) | first 200 of GET /v1/account (median) |`,
    `|---|---:|---:|`,
    `| bare Node server (\`node bench/baseline-server\`) | ${baseline.first_answer_ms} ms | ${baseline.first_ok_ms} ms |`,
    `| the same bare server started by \`npm start\` (npm's own cost; ${result.ratio.baseline_through_npm}x) | ${result.median.baseline_through_npm.first_answer_ms} ms | |`,
    `| \`npm start\`, second start | ${npm_start.first_answer_ms} ms | ${npm_start.first_ok_ms} ms |`,
    `| ratio | ${result.ratio.first_answer}x | ${result.ratio.first_ok}x |`,
    `| \`npm start\` right after a source was saved (tsx; bundles in the background) | ${result.median.after_edit.first_answer_ms} ms | ${result.median.after_edit.first_ok_ms} ms |`,
    '',
    `${result.runs} runs each, alternating; ${result.after_edit.length} after an edit.`,
    '',
    'Where the time goes (npm start, medians; marks from NOTES_START_TRACE):',
    '',
    '| phase ends | ms since spawn | since the row before |',
    '|---|---:|---:|',
    ...result.phases.map((phase) => `| ${phase.name} | ${phase.ends_at_ms} | ${phase.since_previous_ms} |`),
  ];
  return rows.join('\n');
}

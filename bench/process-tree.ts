/** Samples a process tree from /proc: where the recognisers' memory and CPU time show. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readProcStat } from '../src/adapters/speech/proc-stat.ts';
import { descendants, readProcFile } from '../test/support/processes.ts';

export interface TreePeaks {
  /** Peak of the summed RSS of all descendants of the root at one sample. */
  descendantsKb: number;
  /** Peak of the root's RSS plus its descendants' at one sample. */
  treeKb: number;
  /**
   * Peak of the root's PSS plus its descendants' at one sample: the memory the tree holds, each
   * shared page (libraries mapped by every ffmpeg, say) counted once rather than once per process.
   * Read once a second (every `PSS_EVERY` samples), so a peak between two readings can be missed.
   */
  treePssKb: number;
  /**
   * That peak by program name (`comm`; the root as `root`; a whisper.cpp process, `node` by its
   * `comm`, as `whisper-process`): where the memory was.
   */
  treeByNameKb: Record<string, number>;
  /** Peak RSS of the root alone. */
  rootKb: number;
  /** Peak RSS of any single pocketsphinx process. */
  pocketsphinxKb: number;
  /** Most pocketsphinx processes seen running at one sample: the recognisers actually at work. */
  pocketsphinxAtOnce: number;
  /** Peak RSS of any single recogniser process, of either engine: pocketsphinx or whisper.cpp. */
  recogniserKb: number;
  /** Most recogniser processes (pocketsphinx or whisper.cpp) seen running at one sample. */
  recognisersAtOnce: number;
  /**
   * CPU seconds (user + system) by program name (`comm`, a whisper.cpp process as
   * `whisper-process`), each process counted at its last sample.
   * A process's time after its last sample is missed: at most one interval per process.
   */
  cpuSeconds: Record<string, number>;
  /** The root's own CPU seconds while sampled (for the service: API, queues, diarization). */
  rootCpuSeconds: number;
}

const ticksPerSecond = Number(
  (await promisify(execFile)('getconf', ['CLK_TCK']).catch(() => ({ stdout: '100' }))).stdout.trim(),
);

/** PSS is read at every this many samples (once a second at the default interval). */
const PSS_EVERY = 4;

/**
 * The name a whisper.cpp process of the service is counted under: a Node process (`comm` `node`)
 * running whisper-process.ts or its bundle (src/adapters/speech/whisper/whisper-process.ts).
 */
export const WHISPER_PROCESS = 'whisper-process';

/** Whether a program name (as `sampleProcessTree` counts it) is a recogniser of either engine. */
export const isRecogniser = (name: string) => name.startsWith('pocketsphinx') || name === WHISPER_PROCESS;

/** Samples `root` (default this process) and its descendants every `intervalMs` until stopped. */
export function sampleProcessTree(
  root: number = process.pid,
  intervalMs = 250,
): { stop(): Promise<TreePeaks> } {
  const peaks = {
    descendantsKb: 0,
    treeKb: 0,
    treePssKb: 0,
    rootKb: 0,
    pocketsphinxKb: 0,
    pocketsphinxAtOnce: 0,
    recogniserKb: 0,
    recognisersAtOnce: 0,
  };
  const cpuTicks = new Map<number, { name: string; ticks: number }>();
  let rootStart: number | undefined;
  let rootTicks = 0;
  let treeByNameKb: Record<string, number> = {};
  let samples = 0;
  /** What each `node` descendant runs, read from its command line once: it does not change. */
  const nodeNames = new Map<number, string>();
  const programName = (pid: number, comm: string) => {
    if (comm !== 'node') return comm;
    let name = nodeNames.get(pid);
    if (name === undefined) {
      const commandLine = readProcFile(`/proc/${pid}/cmdline`);
      // Gone already (empty): not cached, so a later process with this pid is read again.
      if (!commandLine) return comm;
      name = commandLine.includes(WHISPER_PROCESS) ? WHISPER_PROCESS : comm;
      nodeNames.set(pid, name);
    }
    return name;
  };
  const sample = async () => {
    // PSS (smaps_rollup: the kernel walks every mapping of every process) once a second, RSS and CPU
    // at every sample: reading PSS four times a second cost the bench CPU the service competed for.
    const withPss = samples++ % PSS_EVERY === 0;
    const own = await readProcess(root, withPss);
    if (own) {
      rootStart ??= own.ticks;
      rootTicks = own.ticks - rootStart;
    }
    let sum = 0;
    let pss = own?.pssKb ?? 0;
    let recognisers = 0;
    let recognisersOfEither = 0;
    const byName: Record<string, number> = { root: own?.rssKb ?? 0 };
    for (const { pid, name: comm } of await descendants(root)) {
      const entry = await readProcess(pid, withPss);
      if (!entry) continue;
      const name = programName(pid, comm);
      sum += entry.rssKb;
      pss += entry.pssKb;
      byName[name] = (byName[name] ?? 0) + entry.rssKb;
      // Processes that started before sampling began would count their earlier CPU too: sampling
      // starts before the work it measures, so those are the service's idle helpers, if any.
      cpuTicks.set(pid, { name, ticks: entry.ticks });
      if (name.startsWith('pocketsphinx')) {
        recognisers++;
        peaks.pocketsphinxKb = Math.max(peaks.pocketsphinxKb, entry.rssKb);
      }
      if (isRecogniser(name)) {
        recognisersOfEither++;
        peaks.recogniserKb = Math.max(peaks.recogniserKb, entry.rssKb);
      }
    }
    peaks.descendantsKb = Math.max(peaks.descendantsKb, sum);
    if (withPss) peaks.treePssKb = Math.max(peaks.treePssKb, pss);
    if (sum + (own?.rssKb ?? 0) > peaks.treeKb) {
      peaks.treeKb = sum + (own?.rssKb ?? 0);
      treeByNameKb = byName;
    }
    peaks.rootKb = Math.max(peaks.rootKb, own?.rssKb ?? 0);
    peaks.pocketsphinxAtOnce = Math.max(peaks.pocketsphinxAtOnce, recognisers);
    peaks.recognisersAtOnce = Math.max(peaks.recognisersAtOnce, recognisersOfEither);
  };
  // A sample still running when the next is due (a loaded machine) makes that one skip, not queue.
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= sample().finally(() => {
      running = undefined;
    });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await sample();
      const cpuSeconds: Record<string, number> = {};
      for (const { name, ticks } of cpuTicks.values())
        cpuSeconds[name] = (cpuSeconds[name] ?? 0) + ticks / ticksPerSecond;
      return { ...peaks, treeByNameKb, cpuSeconds, rootCpuSeconds: rootTicks / ticksPerSecond };
    },
  };
}

/**
 * The whole machine's CPU seconds since boot (/proc/stat, all cores): `busy` is every state but idle,
 * iowait and steal; `stolen` is steal, the time the hypervisor ran other guests while this one waited.
 */
export function machineCpuSeconds(): { busy: number; stolen: number } {
  const [total = ''] = readProcFile('/proc/stat').split('\n');
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = total
    .trim()
    .split(/\s+/)
    .map(Number);
  return { busy: (user + nice + system + irq + softirq) / ticksPerSecond, stolen: steal / ticksPerSecond };
}

/** CPU seconds (user + system, all its threads) `pid` has used so far; NaN once it has gone. */
export async function cpuSecondsOf(pid: number): Promise<number> {
  const entry = await readProcess(pid, false);
  return entry ? entry.ticks / ticksPerSecond : Number.NaN;
}

/**
 * CPU seconds (cutime + cstime) of the children `pid` has waited for so far, and of theirs in turn:
 * every second of a child that has exited and been reaped, none lost between samples. NaN once gone.
 */
export function reapedChildrenCpuSecondsOf(pid: number): number {
  const fields = readProcStat(`/proc/${pid}/stat`)?.fields;
  // cutime and cstime are fields 16 and 17 of the man page.
  return fields ? (Number(fields[13]) + Number(fields[14])) / ticksPerSecond : Number.NaN;
}

/** RSS, PSS and utime + stime (clock ticks) of `pid`, or undefined once it has gone. */
async function readProcess(
  pid: number,
  withPss = true,
): Promise<{ rssKb: number; pssKb: number; ticks: number } | undefined> {
  // Synchronous reads: /proc never waits on a disk, and a promise per file cost the bench CPU the
  // service competed for (test/support/processes.ts).
  const stat = readProcStat(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const status = readProcFile(`/proc/${pid}/status`);
  const rollup = withPss ? readProcFile(`/proc/${pid}/smaps_rollup`) : '';
  // utime and stime are fields 14 and 15 of the man page.
  const { fields } = stat;
  return {
    rssKb: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0),
    pssKb: Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0),
    ticks: Number(fields[11]) + Number(fields[12]),
  };
}

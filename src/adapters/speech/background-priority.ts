import { type ChildProcess, execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Nice value of the recognisers, decoders and diarizer threads. Work on recordings can wait a few
 * milliseconds; a person waiting for a page cannot: with the API at the default 0, the kernel gives the
 * cores to the API first whenever both want them (measured in `npm run bench -- throughput`).
 */
export const BACKGROUND_NICENESS = 10;

/**
 * Lowers a child process right after spawn (Node has started it by then, before it has done any work
 * of note; threads it creates later inherit the value). Best effort: a platform or sandbox that
 * refuses only loses the priority, never the work.
 */
export function runInBackground<T extends ChildProcess>(child: T): T {
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, BACKGROUND_NICENESS);
    } catch {
      // e.g. the child has already exited: nothing to lower.
    }
  }
  return child;
}

/**
 * Lowers the calling thread: to the background nice value at once, then, where `chrt` runs, into the
 * idle scheduling class (`inIdleClass` says why). On Linux both belong to a thread, not to the
 * process, so a worker thread calling this lowers itself and leaves the thread that serves the API as
 * it is. Resolves once done; a platform or sandbox that refuses only leaves the thread higher.
 */
export async function lowerThisThread(): Promise<void> {
  try {
    setPriority(BACKGROUND_NICENESS);
  } catch {
    // Not permitted here: the thread keeps its priority.
  }
  if (process.platform !== 'linux') return;
  // `/proc/thread-self` links to `<pid>/task/<tid>`: the id chrt needs for this thread alone. No
  // availability check first: where chrt is missing or refused, this one call fails and changes nothing.
  const tid = readlinkSync('/proc/thread-self').split('/').at(-1) ?? '';
  await new Promise<void>((resolve) => execFile('chrt', ['--idle', '-p', '0', tid], () => resolve()));
}

let idleSchedulingChecked: Promise<boolean> | undefined;

/** Whether `chrt --idle` (util-linux) runs programs here: Linux, and not refused by a sandbox. */
export function idleSchedulingAvailable(): Promise<boolean> {
  idleSchedulingChecked ??= new Promise((resolve) => {
    if (process.platform !== 'linux') return resolve(false);
    execFile('chrt', ['--idle', '0', 'true'], (error) => resolve(!error));
  });
  return idleSchedulingChecked;
}

/**
 * The command that runs `program` with `args` in Linux's SCHED_IDLE class where it can (the programs
 * it starts inherit it), else as it is (then `runInBackground`'s nice value still applies). Nice 10
 * lowers a recogniser's share of a core, but a request woken on a core where a recogniser runs can
 * still wait for the next scheduler tick, at each of its hops between threads; the kernel preempts a
 * SCHED_IDLE task as soon as any other becomes runnable (docs/benchmarks.md, "Throughput").
 */
export async function inIdleClass(program: string, args: readonly string[]): Promise<[string, string[]]> {
  return (await idleSchedulingAvailable())
    ? ['chrt', ['--idle', '0', program, ...args]]
    : [program, [...args]];
}

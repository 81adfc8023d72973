import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from './proc-stat.ts';

/**
 * Whether a program that starts others (the recogniser: `sh`, its `cat` and pocketsphinx) gets a
 * process group of its own (`detached`), killed as one. Not on Linux: `detached` also starts a new
 * session, and Linux schedules each session as a group of its own (autogroups, on by default where
 * the kernel has them, for processes outside any cpu cgroup of their own), so the recogniser's group
 * was weighed as a peer of the whole service whatever its own priority, and the API waited behind
 * idle-class recognisers (`npm run bench -- throughput`: getNote p99 while four recordings started
 * 28-46 ms against 13 idle; 13-18 ms in the service's session). There the programs stay in the
 * service's session and are found through /proc to be stopped together.
 */
export const OWN_PROCESS_GROUP = process.platform !== 'linux';

/** Kills `child` and every process it started, at once (SIGKILL). */
export function killProgramTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const pids = OWN_PROCESS_GROUP ? [-child.pid] : stoppedTree(child.pid);
  for (const pid of pids) signal(pid, 'SIGKILL');
}

/**
 * `pid` and its descendants, each stopped (SIGSTOP) before its children are read: a stopped process
 * starts no more (a fork under way fails), and a killed parent's children would be re-parented out
 * of reach, so every pid is gathered before any is killed.
 */
function stoppedTree(pid: number): number[] {
  const found: number[] = [];
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    signal(next, 'SIGSTOP');
    found.push(next);
    pending.push(...childrenOf(next));
  }
  return found;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** From each thread's /proc `children` list, or where the kernel has none, from every process's parent. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch (error) {
    if (!isMissingChildrenList(error, pid)) return []; // The process is gone: nothing of it to kill.
    return childrenByParentPid(pid);
  }
}

/** The slower way, every process's parent read: for kernels without `children` lists. */
export function childrenByParentPid(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((entry) => parentOf(entry) === pid);
}

/** The process is there but its kernel lacks `children` lists (CONFIG_PROC_CHILDREN). */
function isMissingChildrenList(error: unknown, pid: number): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT' && parentOf(pid) !== undefined;
}

function parentOf(pid: number): number | undefined {
  const parent = readProcStat(`/proc/${pid}/stat`)?.fields[1];
  return parent === undefined ? undefined : Number(parent);
}

import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a program that starts others (the recogniser: `sh`, its `cat` and pocketsphinx) gets a
 * process group of its own (`detached`), killed as one. Not on Linux: `detached` also starts a new
 * session, and Linux schedules each session as a group of its own (autogroups, on by default), so
 * the recogniser's group was weighed as a peer of the whole service whatever its own priority, and
 * the API waited behind idle-class recognisers (`npm run bench -- throughput`: getNote p99 while four
 * recordings started 28-46 ms against 13 idle; 13-18 ms in the service's session). There the
 * programs stay in the service's session and are found through /proc to be stopped together.
 */
export const OWN_PROCESS_GROUP = process.platform !== 'linux';

/** Kills `child` and every process it started, at once (SIGKILL). */
export function killProgramTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // Every pid is gathered before any is killed: a killed parent's children are re-parented away.
  const pids = OWN_PROCESS_GROUP ? [-child.pid] : [...descendantsOf(child.pid), child.pid];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** The processes `pid` started and theirs in turn, from each thread's /proc `children` list. */
function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const parents = [pid];
  for (let parent = parents.pop(); parent !== undefined; parent = parents.pop()) {
    for (const child of childrenOf(parent)) {
      found.push(child);
      parents.push(child);
    }
  }
  return found;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return []; // Gone meanwhile: nothing of it left to kill.
  }
}

import { readFileSync } from 'node:fs';

/**
 * A process's (or thread's) `/proc/.../stat` line, read synchronously (/proc is in memory and never
 * waits on a disk): its command name and the fields after it, so that `fields[0]` is the state,
 * `fields[1]` the parent pid, `fields[3]` the session (the man page's field numbers minus 3).
 * `undefined` once the process has gone. The name may hold spaces and parentheses: it ends at the
 * last `)`.
 */
export function readProcStat(path: string): { name: string; fields: string[] } | undefined {
  let line: string;
  try {
    line = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const close = line.lastIndexOf(')');
  if (close < 0) return undefined;
  return { name: line.slice(line.indexOf('(') + 1, close), fields: line.slice(close + 2).split(' ') };
}

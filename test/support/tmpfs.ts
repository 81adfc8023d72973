import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Whether this process may mount a small tmpfs (root in a container that allows mounts, as here and
 * in CI): the full-disk tests need a file system they can fill. Elsewhere they are skipped, and say so.
 */
export function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = join(tmpdir(), `notes-mount-probe-${process.pid}`);
  try {
    execFileSync('mkdir', ['-p', probe]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    execFileSync('rm', ['-rf', probe]);
  }
}

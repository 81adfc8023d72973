import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `work` with a private scratch directory (audio copies, synthesis output), removed afterwards
 * whatever happens. `root` is the runtime's work folder (the local runtime empties it on start, so a
 * crash leaves nothing behind for good); the system temp folder when none is configured.
 */
export async function withScratchDir<T>(
  root: string | undefined,
  prefix: string,
  work: (dir: string) => Promise<T>,
): Promise<T> {
  const base = root ?? tmpdir();
  await mkdir(base, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(base, prefix));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

import { statfs } from 'node:fs/promises';

const DEFAULT_MIN_FREE_MB = 32;
const SMALL_DISK_RESERVE_SHARE = 0.05;

/**
 * The free space of the file system holding `dir`, and the reserve the service keeps free there so
 * the database and other jobs can still write: NOTES_MIN_FREE_DISK_MB (32 MB), or a share of a small
 * file system, so it stays usable.
 */
export async function diskSpace(dir: string): Promise<{ free: number; reserve: number }> {
  const configured = Number(process.env.NOTES_MIN_FREE_DISK_MB ?? DEFAULT_MIN_FREE_MB) * 1024 * 1024;
  const { bavail, blocks, bsize } = await statfs(dir);
  return { free: bavail * bsize, reserve: Math.min(configured, blocks * bsize * SMALL_DISK_RESERVE_SHARE) };
}

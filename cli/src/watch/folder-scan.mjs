// @ts-check
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { contentTypeFor } from '../content-types.mjs';

/**
 * Names that downloaders, editors and copy tools give to files still being written (Firefox `.part`,
 * Chrome `.crdownload`, Safari `.download`, editors' `~` backups, `.tmp`).
 */
const TEMPORARY_SUFFIXES = ['.part', '.partial', '.crdownload', '.download', '.tmp', '~'];

/**
 * @typedef {object} FolderEntry
 * @property {string} name
 * @property {string} path
 * @property {number} size bytes
 * @property {number} mtimeMs
 * @property {string} contentType
 */

/**
 * Hidden files (also macOS `._name` companions and rsync's `.name.XXXXXX` temporaries), Office lock
 * files (`~$name`) and temporary names are never recordings to send.
 * @param {string} name
 * @returns {boolean}
 */
export function isIgnoredName(name) {
  const lower = name.toLowerCase();
  return (
    name.startsWith('.') ||
    name.startsWith('~$') ||
    TEMPORARY_SUFFIXES.some((suffix) => lower.endsWith(suffix))
  );
}

/**
 * The recordings directly in `folder` (no subfolders, so the done folder inside it is never read):
 * files with a known audio or video extension, not ignored, not empty (an empty file is one being
 * created: it is looked at again once it has bytes).
 * @param {string} folder
 * @returns {Promise<FolderEntry[]>} rejects when the folder cannot be read
 */
export async function scanFolder(folder) {
  const names = await readdir(folder);
  /** @type {FolderEntry[]} */
  const entries = [];
  for (const name of names) {
    if (isIgnoredName(name)) continue;
    const contentType = contentTypeFor(name);
    if (!contentType) continue;
    const path = join(folder, name);
    try {
      const stats = await stat(path);
      if (!stats.isFile() || stats.size === 0) continue;
      entries.push({ name, path, size: stats.size, mtimeMs: stats.mtimeMs, contentType });
    } catch {
      // Removed or renamed between the listing and now: the next scan sees what is there.
    }
  }
  return entries;
}

/**
 * The file's size and modification time now, or undefined when it is gone.
 * @param {string} path
 * @returns {Promise<{ size: number, mtimeMs: number } | undefined>}
 */
export async function currentStats(path) {
  try {
    const stats = await stat(path);
    return { size: stats.size, mtimeMs: stats.mtimeMs };
  } catch {
    return undefined;
  }
}

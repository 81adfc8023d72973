// @ts-check
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, rename, unlink } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';

/**
 * Moves a transcribed recording into the done folder, never over another file there: `name.wav`
 * becomes `name (2).wav` when `name.wav` is taken. Across file systems (a done folder on another
 * disk) it copies, then deletes.
 * @param {string} path
 * @param {string} doneFolder
 * @returns {Promise<string>} where it went
 */
export async function moveToDone(path, doneFolder) {
  await mkdir(doneFolder, { recursive: true });
  const target = await freeName(doneFolder, basename(path));
  try {
    await rename(path, target);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EXDEV') throw error;
    await copyFile(path, target, constants.COPYFILE_EXCL);
    await unlink(path);
  }
  return target;
}

/**
 * @param {string} folder
 * @param {string} name
 * @returns {Promise<string>}
 */
async function freeName(folder, name) {
  const extension = extname(name);
  const stem = basename(name, extension);
  for (let n = 1; ; n++) {
    const candidate = join(folder, n === 1 ? name : `${stem} (${n})${extension}`);
    try {
      await lstat(candidate);
    } catch {
      return candidate;
    }
  }
}

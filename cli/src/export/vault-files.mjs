// @ts-check
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';

/**
 * Files in the export folder. Writes are synchronous on purpose: a Ctrl-C handler then always runs
 * between two whole writes, never in the middle of one (see commands/export.mjs).
 */

/**
 * Writes through a hidden temporary file and a rename, so that the vault app never reads a half
 * written note and a crash leaves the old content or the new one.
 * @param {string} path
 * @param {string} content
 */
export function writeFileAtomically(path, content) {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, content, 'utf8');
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The file's bytes, or null when there is no such file.
 * @param {string} path
 * @returns {Buffer | null}
 */
export function readIfPresent(path) {
  try {
    return readFileSync(path);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Removes a file if it is there.
 * @param {string} path
 */
export function removeIfPresent(path) {
  rmSync(path, { force: true });
}

/**
 * The names of the folder's entries (files and folders), for choosing names that are free.
 * @param {string} folder
 * @returns {string[]}
 */
export function entryNames(folder) {
  return readdirSync(folder);
}

/**
 * @param {string} folder
 * @param {string} file `/`-separated path under the folder, as the state keeps it
 * @returns {string}
 */
export function pathIn(folder, file) {
  return join(folder, ...file.split('/'));
}

/**
 * Finds, under the folder, the Markdown files whose front matter names each note (`note_id: ...`):
 * a person who renamed or moved an exported file in the vault app keeps it, and the export follows
 * it instead of writing it again. Hidden folders (`.obsidian`, `.trash`) are not searched.
 * @param {string} folder
 * @param {Set<string>} noteIds the notes whose files are missing
 * @returns {Map<string, string>} note ID -> `/`-separated path under the folder
 */
export function findMovedFiles(folder, noteIds) {
  /** @type {Map<string, string>} */
  const found = new Map();
  /** @param {string} directory */
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || found.size === noteIds.size) continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md') && !entry.name.endsWith('.conflict.md')) {
        const noteId = frontMatterNoteId(path);
        if (noteId && noteIds.has(noteId) && !found.has(noteId)) {
          found.set(noteId, relative(folder, path).split(sep).join('/'));
        }
      }
    }
  };
  walk(folder);
  return found;
}

/**
 * The `note_id` of a file's front matter, reading only its beginning.
 * @param {string} path
 * @returns {string | null}
 */
function frontMatterNoteId(path) {
  const buffer = Buffer.alloc(4096);
  let length = 0;
  const descriptor = openSync(path, 'r');
  try {
    length = readSync(descriptor, buffer, 0, buffer.length, 0);
  } finally {
    closeSync(descriptor);
  }
  const head = buffer.subarray(0, length).toString('utf8');
  if (!head.startsWith('---')) return null;
  return /^note_id:\s*"?([0-9a-f-]{36})"?\s*$/m.exec(head)?.[1] ?? null;
}

// @ts-check
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { UsageError } from '../errors.mjs';

const FORMAT_VERSION = 1;

/**
 * What `notes watch` remembers of one recording, keyed by the SHA-256 of its bytes.
 * - `uploading`: submitted or about to be; the upload may not have finished (redone on the next
 *   start: the note ID is derived from the content, so the retry reaches the same note)
 * - `submitted`: the service holds the recording; its transcription runs
 * - `completed`: the transcription completed
 * - `failed`: refused, or the transcription failed; not retried unless --retry-failed
 * @typedef {'uploading' | 'submitted' | 'completed' | 'failed'} RecordState
 *
 * @typedef {object} FileRecord
 * @property {string} note_id
 * @property {string} file name in the folder when first seen
 * @property {string[]} other_names copies with the same content seen under other names
 * @property {RecordState} state
 * @property {number} size_bytes
 * @property {number} mtime_ms when first seen (with name and size: recognises it without hashing)
 * @property {string} updated_at ISO time
 * @property {{ exit_code: number, message: string }} [error] state `failed`
 * @property {string} [moved_to] --after move: where it went
 *
 * @typedef {object} StateDocument
 * @property {number} version
 * @property {string} folder
 * @property {string} base_url
 * @property {Record<string, FileRecord>} files
 */

/**
 * The default state file: in the user's configuration directory, not beside the recordings, so a
 * read-only or shared folder works and two machines watching one share keep their own progress.
 * One file per watched folder and service (the same folder sent to a local service and to a
 * deployment are two histories).
 * @param {string} folder absolute
 * @param {string} baseUrl
 * @param {NodeJS.ProcessEnv} env
 * @returns {string}
 */
export function defaultStatePath(folder, baseUrl, env) {
  const xdg = (env.XDG_CONFIG_HOME ?? '').trim();
  const appData = (env.APPDATA ?? '').trim();
  // XDG: a relative XDG_CONFIG_HOME is invalid and ignored.
  const configHome = isAbsolute(xdg)
    ? xdg
    : process.platform === 'win32' && appData
      ? appData
      : join(homedir(), '.config');
  const key = createHash('sha256').update(`${folder}\n${baseUrl}`).digest('hex').slice(0, 16);
  return join(configHome, 'notes-cli', `watch-${key}.json`);
}

/** The state file of a watched folder: read once, then rewritten whole after every change. */
export class WatchState {
  /** @type {StateDocument} */
  #document;
  #path;
  /** @type {Promise<void>} */
  #writes = Promise.resolve();
  #closed = false;

  /**
   * @param {string} path
   * @param {StateDocument} document
   */
  constructor(path, document) {
    this.#path = path;
    this.#document = document;
  }

  get path() {
    return this.#path;
  }

  /**
   * @param {string} path
   * @param {{ folder: string, baseUrl: string }} identity
   * @returns {Promise<WatchState>}
   */
  static async load(path, identity) {
    /** @type {string | undefined} */
    let text;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') {
        const code = /** @type {NodeJS.ErrnoException} */ (error).code;
        throw new UsageError(`cannot read the state file ${path}${code ? ` (${code})` : ''}`, 'watch');
      }
    }
    /** @type {Record<string, FileRecord>} */
    let files = {};
    if (text !== undefined) {
      try {
        const parsed = /** @type {Partial<StateDocument>} */ (JSON.parse(text));
        files = parsed.files && typeof parsed.files === 'object' ? parsed.files : {};
        // Tolerate a record edited by hand without its list of other names.
        for (const record of Object.values(files)) record.other_names = record.other_names ?? [];
      } catch {
        // Written by rename, so never half-written by this program: someone edited it.
        throw new UsageError(
          `the state file ${path} is not valid JSON. Fix it, or delete it: files are then hashed again ` +
            'and each reaches the same note as before (no duplicate notes).',
          'watch',
        );
      }
    }
    return new WatchState(path, {
      version: FORMAT_VERSION,
      folder: identity.folder,
      base_url: identity.baseUrl,
      files,
    });
  }

  /**
   * @param {string} sha256
   * @returns {FileRecord | undefined}
   */
  get(sha256) {
    return Object.hasOwn(this.#document.files, sha256) ? this.#document.files[sha256] : undefined;
  }

  /**
   * The hash of a file recorded under this name, size and modification time, so that a restart
   * does not read every recording again.
   * @param {string} name
   * @param {number} size
   * @param {number} mtimeMs
   * @returns {string | undefined}
   */
  knownHash(name, size, mtimeMs) {
    for (const [sha256, record] of Object.entries(this.#document.files)) {
      if (record.file === name && record.size_bytes === size && record.mtime_ms === mtimeMs) return sha256;
    }
    return undefined;
  }

  /**
   * Changes (or creates) a record and saves the whole state.
   * @param {string} sha256
   * @param {FileRecord} record
   * @returns {Promise<void>}
   */
  put(sha256, record) {
    this.#document.files[sha256] = { ...record, updated_at: new Date().toISOString() };
    return this.save();
  }

  /**
   * Writes the state (writes are queued, each with the state as it is when queued).
   * @returns {Promise<void>}
   */
  save() {
    if (this.#closed) return this.#writes;
    const text = `${JSON.stringify(this.#document, null, 2)}\n`;
    const path = this.#path;
    this.#writes = this.#writes.then(() => writeAtomically(path, text));
    return this.#writes;
  }

  /**
   * Waits for queued writes; later changes are no longer written (the watcher is stopping, and
   * work abandoned half-way must not be recorded as done).
   * @returns {Promise<void>}
   */
  async close() {
    this.#closed = true;
    await this.#writes.catch(() => {});
  }
}

/**
 * Temp file, flushed to disk, then renamed over the state: a crash or a kill at any moment leaves
 * either the old state or the new one, never a mix.
 * @param {string} path
 * @param {string} text
 */
async function writeAtomically(path, text) {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

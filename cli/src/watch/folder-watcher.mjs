// @ts-check
import { watch } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { notePath } from '../commands/shared.mjs';
import { CliError } from '../errors.mjs';
import { EXIT } from '../exit-codes.mjs';
import { detailOf } from '../http.mjs';
import { info, printJsonLine } from '../output.mjs';
import { describeJob } from '../poll.mjs';
import { noteIdForContent, sha256OfFile } from './content-id.mjs';
import { currentStats, scanFolder } from './folder-scan.mjs';
import { moveToDone } from './move-to-done.mjs';
import { StabilityTracker } from './stable-files.mjs';
import { submitRecording } from './submit-recording.mjs';

/** File-system events come in bursts while a file is written: at most one scan per this long. */
const MIN_SCAN_GAP_MS = 1_000;

/**
 * @typedef {import('./folder-scan.mjs').FolderEntry} FolderEntry
 * @typedef {import('./state.mjs').FileRecord} FileRecord
 *
 * @typedef {object} WatchSettings
 * @property {string} folder absolute
 * @property {string} shownFolder the folder as given: output lines name files under it
 * @property {number | undefined} speakers
 * @property {string | undefined} collectionId
 * @property {'leave' | 'move'} after
 * @property {string} doneFolder absolute
 * @property {boolean} wait
 * @property {number} pollMs folder rescans and transcription polls
 * @property {number} settleMs how long a file must stay unchanged
 * @property {boolean} once
 * @property {boolean} retryFailed
 *
 * @typedef {object} Waiting a file whose transcription is awaited (--wait, --after move)
 * @property {FolderEntry} entry
 * @property {boolean} copy a copy of the recording under another name: only moved, never reported
 *
 * @typedef {{ run: <T>(work: () => Promise<T>) => Promise<T> }} Guard
 */

/** Sends every recording that appears in a folder, once, and follows its transcription. */
export class FolderWatcher {
  #api;
  #state;
  #settings;
  #signal;
  #guard;
  #tracker;
  /** Files dealt with in this run, by path, as they were: looked at again only if they change. */
  /** @type {Map<string, { size: number, mtimeMs: number }>} */
  #handled = new Map();
  /** @type {Set<string>} */
  #announced = new Set();
  /** @type {Map<string, Waiting[]>} by SHA-256 */
  #pending = new Map();
  /** @type {Map<string, string>} the last job status said, by SHA-256 */
  #jobLines = new Map();
  /** @type {Set<string>} failed recordings retried in this run (--retry-failed: once each) */
  #retried = new Set();
  /** @type {number | undefined} */
  #firstFailure;
  #unreadable = false;
  /** @type {() => void} */
  #wake = () => {};

  /**
   * @param {import('../http.mjs').ApiClient} api
   * @param {import('./state.mjs').WatchState} state
   * @param {WatchSettings} settings
   * @param {AbortSignal} signal
   * @param {Guard} guard runs API work (waits out outages, or not with --once)
   */
  constructor(api, state, settings, signal, guard) {
    this.#api = api;
    this.#state = state;
    this.#settings = settings;
    this.#signal = signal;
    this.#guard = guard;
    this.#tracker = new StabilityTracker(settings.settleMs);
  }

  /**
   * Watches until the signal aborts, or with `once` until nothing is left to do.
   * @returns {Promise<number>} with `once`: the exit code of the first file that failed, else 0
   */
  async run() {
    const events = this.#settings.once ? undefined : this.#watchEvents();
    try {
      let nextPollAt = 0;
      let lastScanAt = 0;
      while (!this.#signal.aborted) {
        const gap = lastScanAt + MIN_SCAN_GAP_MS - Date.now();
        if (gap > 0) await sleep(gap);
        lastScanAt = Date.now();
        const settling = await this.#scanAndSend();
        if (this.#pending.size && Date.now() >= nextPollAt) {
          await this.#pollPending();
          nextPollAt = Date.now() + this.#settings.pollMs;
        }
        if (this.#settings.once && settling.length === 0 && this.#pending.size === 0) break;
        const wakeAt = Math.min(
          Date.now() + this.#settings.pollMs,
          this.#tracker.nextCheckAt(settling) ?? Number.POSITIVE_INFINITY,
          this.#pending.size ? nextPollAt : Number.POSITIVE_INFINITY,
        );
        await this.#sleepUntil(wakeAt);
      }
      return this.#firstFailure ?? EXIT.OK;
    } finally {
      events?.close();
    }
  }

  /**
   * File-system events make new files noticed at once; the periodic rescan stays the rule, since
   * events are not delivered for changes made by other machines on network shares (SMB, NFS).
   * @returns {import('node:fs').FSWatcher | undefined}
   */
  #watchEvents() {
    const fallback = `rescanning every ${this.#settings.pollMs / 1000} s`;
    try {
      const watcher = watch(this.#settings.folder, { persistent: false }, () => this.#wake());
      watcher.on('error', (error) => {
        info(`File-system events stopped (${error.message}); ${fallback}.`);
        watcher.close();
      });
      return watcher;
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error);
      info(`File-system events are not available here (${code}); ${fallback}.`);
      return undefined;
    }
  }

  /**
   * @param {number} time epoch ms
   * @returns {Promise<void>} at `time`, on a file-system event, or when stopped
   */
  #sleepUntil(time) {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#signal.removeEventListener('abort', done);
        this.#wake = () => {};
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, time - Date.now()));
      this.#wake = done;
      this.#signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Looks at the folder and sends every file that has settled, oldest first.
   * @returns {Promise<string[]>} paths of files not settled yet
   */
  async #scanAndSend() {
    const entries = await this.#scan();
    // Unreadable (a share that dropped out): what was handled stays handled until it can be read again.
    if (entries === null) return [];
    const now = Date.now();
    const present = new Set(entries.map((entry) => entry.path));
    this.#tracker.keepOnly(present);
    for (const path of this.#handled.keys()) if (!present.has(path)) this.#handled.delete(path);
    for (const path of this.#announced) if (!present.has(path)) this.#announced.delete(path);

    /** @type {{ entry: FolderEntry, sha256?: string }[]} */
    const ready = [];
    /** @type {string[]} */
    const settling = [];
    for (const entry of entries) {
      const handled = this.#handled.get(entry.path);
      if (handled && handled.size === entry.size && handled.mtimeMs === entry.mtimeMs) continue;
      // Recorded under this name, size and time: unchanged since, no need to wait or read it again.
      const known = this.#state.knownHash(entry.name, entry.size, entry.mtimeMs);
      if (known) ready.push({ entry, sha256: known });
      else if (this.#tracker.isStable(entry, now)) ready.push({ entry });
      else {
        settling.push(entry.path);
        if (!this.#announced.has(entry.path)) {
          this.#announced.add(entry.path);
          info(`Found ${entry.name}: waiting until it stops changing (${this.#settings.settleMs / 1000} s).`);
        }
      }
    }
    ready.sort((a, b) => a.entry.mtimeMs - b.entry.mtimeMs);
    for (const { entry, sha256 } of ready) {
      if (this.#signal.aborted) break;
      if (!(await this.#handle(entry, sha256))) settling.push(entry.path);
    }
    return settling;
  }

  /** @returns {Promise<FolderEntry[] | null>} null: the folder cannot be read now */
  async #scan() {
    try {
      const entries = await scanFolder(this.#settings.folder);
      if (this.#unreadable) info(`${this.#settings.shownFolder} can be read again.`);
      this.#unreadable = false;
      return entries;
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error);
      const message = `cannot read ${this.#settings.shownFolder} (${code})`;
      if (this.#settings.once) throw new CliError(message, EXIT.UNEXPECTED);
      // A network share that dropped out: keep trying, as for the service.
      if (!this.#unreadable) info(`${message}; trying again every ${this.#settings.pollMs / 1000} s.`);
      this.#unreadable = true;
      return null;
    }
  }

  /**
   * Decides what a settled file needs, by its content: sending, waiting, moving, or nothing.
   * @param {FolderEntry} entry
   * @param {string | undefined} knownSha256
   * @returns {Promise<boolean>} false when the file changed while it was read (wait again)
   */
  async #handle(entry, knownSha256) {
    let sha256 = knownSha256;
    if (!sha256) {
      try {
        sha256 = await sha256OfFile(entry.path);
      } catch {
        return true; // gone, or unreadable now: the next scan decides
      }
      const after = await currentStats(entry.path);
      if (!after || after.size !== entry.size || after.mtimeMs !== entry.mtimeMs) {
        this.#tracker.forget(entry.path);
        return false;
      }
    }
    this.#handled.set(entry.path, { size: entry.size, mtimeMs: entry.mtimeMs });

    const record = this.#state.get(sha256);
    const knownName = record && (record.file === entry.name || record.other_names.includes(entry.name));
    if (record && !knownName) record.other_names = [...record.other_names, entry.name];

    const retryFailed =
      record?.state === 'failed' && this.#settings.retryFailed && !this.#retried.has(sha256);
    if (!record || record.state === 'uploading' || retryFailed) {
      // New content, an upload cut short (crash, Ctrl-C), or --retry-failed: (re)send it. The
      // content's note ID makes a resend reach the note the first attempt made, if any.
      if (retryFailed) this.#retried.add(sha256);
      await this.#send(entry, sha256, record);
      return true;
    }
    if (!knownName) {
      await this.#state.put(sha256, record);
      this.#emit({
        ...this.#line(entry, sha256, record.note_id, 'duplicate'),
        duplicate_of: join(this.#settings.shownFolder, record.file),
        state: record.state,
      });
      info(`${entry.name}: same content as ${record.file} (note ${record.note_id}); not sent again.`);
      if (this.#settings.after === 'move' && record.state === 'completed') await this.#move(entry, sha256);
      else if (this.#settings.after === 'move' && record.state === 'submitted') {
        this.#await(sha256, { entry, copy: true });
      }
      return true;
    }
    // Known under this name from an earlier run.
    if (record.state === 'submitted' && (this.#settings.wait || this.#settings.after === 'move')) {
      info(`${entry.name}: sent before as note ${record.note_id}; waiting for its transcription.`);
      this.#await(sha256, { entry, copy: false });
    } else if (record.state === 'completed' && this.#settings.after === 'move') {
      await this.#finish(entry, sha256, 'completed');
    } else if (record.state === 'failed') {
      info(
        `${entry.name}: failed before (${record.error?.message ?? 'no details'}); not sent again ` +
          '(--retry-failed sends it again).',
      );
    }
    return true;
  }

  /**
   * @param {FolderEntry} entry
   * @param {string} sha256
   * @param {FileRecord | undefined} record
   */
  async #send(entry, sha256, record) {
    const noteId = record?.note_id ?? noteIdForContent(sha256);
    info(`${entry.name}: sha256 ${sha256.slice(0, 12)}…, note ${noteId}.`);
    /** @type {FileRecord} */
    const base = record ?? {
      note_id: noteId,
      file: entry.name,
      other_names: [],
      state: 'uploading',
      size_bytes: entry.size,
      mtime_ms: entry.mtimeMs,
      updated_at: '',
    };
    const { error: _previous, ...uploading } = base;
    await this.#state.put(sha256, { ...uploading, state: 'uploading' });
    /** @type {'submitted' | 'completed'} */
    let outcome;
    try {
      outcome = await this.#guard.run(async () => {
        // Retried after an outage: a file removed meanwhile is not looked for forever.
        if (!(await currentStats(entry.path))) throw new FileGoneError(entry.name);
        return submitRecording(this.#api, entry, {
          noteId,
          speakers: this.#settings.speakers,
          collectionId: this.#settings.collectionId,
        });
      });
    } catch (error) {
      // A run of --once stops at an outage (exit 8), the file left `uploading`: the next run sends it.
      if (this.#signal.aborted || isFatal(error) || (this.#settings.once && isOutage(error))) throw error;
      if (error instanceof FileGoneError) {
        info(`${entry.name} disappeared before it was sent; it is sent if it comes back.`);
        return;
      }
      await this.#fail(entry, sha256, error);
      return;
    }
    await this.#state.put(sha256, { ...uploading, state: outcome });
    if (outcome === 'completed') info(`${entry.name}: note ${noteId} was transcribed already.`);
    if (outcome === 'submitted' && (this.#settings.wait || this.#settings.after === 'move')) {
      this.#await(sha256, { entry, copy: false });
      return;
    }
    await this.#finish(entry, sha256, outcome);
  }

  /**
   * @param {string} sha256
   * @param {Waiting} waiting
   */
  #await(sha256, waiting) {
    const already = this.#pending.get(sha256) ?? [];
    // The same file seen again while its transcription is awaited is finished once.
    if (already.some((other) => other.entry.path === waiting.entry.path)) return;
    this.#pending.set(sha256, [...already, waiting]);
  }

  /** Reads the transcription of every note awaited; finishes those that completed or failed. */
  async #pollPending() {
    for (const [sha256, waiting] of [...this.#pending]) {
      if (this.#signal.aborted) return;
      const record = this.#state.get(sha256);
      const first = waiting[0];
      if (!record || !first) {
        this.#pending.delete(sha256);
        continue;
      }
      const response = await this.#guard.run(() =>
        this.#api.request('GET', `${notePath(record.note_id)}/transcription`, {
          accept: [404, 409],
          what: `transcription get ${record.note_id}`,
        }),
      );
      if (response.status === 202) {
        const line = describeJob(/** @type {object} */ (response.body ?? {}));
        if (this.#jobLines.get(sha256) !== line) info(`${first.entry.name}: ${line}`);
        this.#jobLines.set(sha256, line);
        continue;
      }
      this.#pending.delete(sha256);
      this.#jobLines.delete(sha256);
      if (response.status === 200) {
        await this.#state.put(sha256, { ...record, state: 'completed' });
        info(`${first.entry.name}: transcription of note ${record.note_id} completed.`);
        for (const { entry, copy } of waiting) {
          if (copy) await this.#move(entry, sha256);
          else await this.#finish(entry, sha256, 'completed', response.body);
        }
        continue;
      }
      const failure =
        response.status === 404
          ? new CliError(`note ${record.note_id} no longer exists (deleted)`, EXIT.NOT_FOUND)
          : new CliError(`the transcription failed: ${detailOf(response)}`, EXIT.CONFLICT);
      for (const { entry, copy } of waiting) if (!copy) await this.#fail(entry, sha256, failure);
    }
  }

  /**
   * The file is done with: moved (--after move, once completed) and reported on stdout.
   * @param {FolderEntry} entry
   * @param {string} sha256
   * @param {'submitted' | 'completed'} status
   * @param {unknown} [transcript] the transcription, when already read
   */
  async #finish(entry, sha256, status, transcript) {
    const record = this.#state.get(sha256);
    if (!record) return;
    const line = this.#line(entry, sha256, record.note_id, status);
    if (status === 'completed' && this.#settings.wait) {
      const body = transcript ?? (await this.#readTranscript(record.note_id));
      // The transcript's fields after ours, ours kept first and never overwritten.
      Object.assign(line, body, this.#line(entry, sha256, record.note_id, status));
    }
    if (status === 'completed' && this.#settings.after === 'move') {
      const movedTo = await this.#move(entry, sha256);
      if (movedTo) line.moved_to = movedTo;
    }
    this.#emit(line);
  }

  /**
   * @param {string} noteId
   * @returns {Promise<unknown>}
   */
  async #readTranscript(noteId) {
    const response = await this.#guard.run(() =>
      this.#api.request('GET', `${notePath(noteId)}/transcription`, { what: `transcription get ${noteId}` }),
    );
    return response.body;
  }

  /**
   * @param {FolderEntry} entry
   * @param {string} sha256
   * @returns {Promise<string | undefined>} where it went; undefined when it could not be moved
   */
  async #move(entry, sha256) {
    if (this.#signal.aborted) return undefined;
    try {
      const movedTo = await moveToDone(entry.path, this.#settings.doneFolder);
      this.#handled.delete(entry.path);
      const record = this.#state.get(sha256);
      // A copy's move is only said on stderr: the record keeps where its own file went.
      if (record && record.file === entry.name)
        await this.#state.put(sha256, { ...record, moved_to: movedTo });
      info(`Moved ${entry.name} to ${movedTo}.`);
      return movedTo;
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error);
      info(`${entry.name}: transcribed, but could not be moved to ${this.#settings.doneFolder} (${code}).`);
      return undefined;
    }
  }

  /**
   * @param {FolderEntry} entry
   * @param {string} sha256
   * @param {unknown} error
   */
  async #fail(entry, sha256, error) {
    const exitCode = error instanceof CliError ? error.exitCode : EXIT.UNEXPECTED;
    const message = error instanceof Error ? error.message : String(error);
    const record = this.#state.get(sha256);
    if (!record) return;
    await this.#state.put(sha256, { ...record, state: 'failed', error: { exit_code: exitCode, message } });
    info(`notes: ${entry.name}: ${message}`);
    this.#emit({
      ...this.#line(entry, sha256, record.note_id, 'failed'),
      error: { exit_code: exitCode, message },
    });
    this.#firstFailure ??= exitCode;
  }

  /**
   * @param {FolderEntry} entry
   * @param {string} sha256
   * @param {string} noteId
   * @param {string} status
   * @returns {Record<string, unknown>}
   */
  #line(entry, sha256, noteId, status) {
    return { file: join(this.#settings.shownFolder, entry.name), sha256, note_id: noteId, status };
  }

  /** @param {Record<string, unknown>} line */
  #emit(line) {
    // After Ctrl-C the state is no longer written: say nothing it would not remember.
    if (!this.#signal.aborted) printJsonLine(line);
  }
}

/** The file went away while it waited to be sent. */
class FileGoneError extends Error {
  /** @param {string} name */
  constructor(name) {
    super(`${name} is gone`);
    this.name = 'FileGoneError';
  }
}

/**
 * Errors that stop the watcher instead of failing one file: a key refused (every file would be).
 * @param {unknown} error
 * @returns {boolean}
 */
function isFatal(error) {
  return error instanceof CliError && error.exitCode === EXIT.AUTH;
}

/**
 * The service did not answer (network error, 429, 5xx after the client's retries): not the file's fault.
 * @param {unknown} error
 */
function isOutage(error) {
  return error instanceof CliError && error.exitCode === EXIT.UNAVAILABLE;
}

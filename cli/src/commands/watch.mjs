// @ts-check
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { flag, integerOption, oneOf, stringOption } from '../args.mjs';
import { CONTENT_TYPES } from '../content-types.mjs';
import { UsageError } from '../errors.mjs';
import { EXIT_BY_SIGNAL } from '../exit-codes.mjs';
import { withoutClientRetries } from '../http.mjs';
import { info } from '../output.mjs';
import { FolderWatcher } from '../watch/folder-watcher.mjs';
import { createOutageGuard } from '../watch/service-outage.mjs';
import { defaultStatePath, WatchState } from '../watch/state.mjs';
import { collectionIdOf } from './collections.mjs';

const COMMAND = 'watch';
const AFTER = /** @type {const} */ (['leave', 'move']);
const DEFAULT_POLL_SECONDS = 10;
const DEFAULT_SETTLE_SECONDS = 5;

/** @type {import('../types.mjs').CommandSpec} */
export const watchCommand = {
  name: 'watch',
  summary: 'Transcribe every recording that appears in a folder, once each (one JSON line per file)',
  operation: 'submitTranscription, then getTranscription',
  args: ['<folder>'],
  options: {
    collection: {
      type: 'string',
      value: 'C',
      description: 'File each new note in this collection (its ID or name)',
    },
    speakers: {
      type: 'string',
      value: 'N',
      description: 'How many people speak, 1 to 10 (diarization hint for every file)',
    },
    after: {
      type: 'string',
      value: 'leave|move',
      description: 'What to do with a file once transcribed: leave it (default) or move it to --done-folder',
    },
    'done-folder': {
      type: 'string',
      value: 'DIR',
      description: 'With --after move: where transcribed files go (default <folder>/done)',
    },
    wait: {
      type: 'boolean',
      description: "Also wait for each transcription; each file's line then carries its transcript",
    },
    'poll-seconds': {
      type: 'string',
      value: 'N',
      description: `Rescan the folder and poll transcriptions every N seconds, 2 to 3600 (default ${DEFAULT_POLL_SECONDS})`,
    },
    'settle-seconds': {
      type: 'string',
      value: 'N',
      description: `A file is sent once unchanged (size and time) for N seconds, 1 to 3600 (default ${DEFAULT_SETTLE_SECONDS})`,
    },
    once: {
      type: 'boolean',
      description: 'Process what is in the folder, then exit (for cron and scripts)',
    },
    'retry-failed': {
      type: 'boolean',
      description: 'Send again, once, the files that failed in earlier runs',
    },
    'state-file': {
      type: 'string',
      value: 'PATH',
      description: 'Where to remember what was sent (default: in the configuration directory, see above)',
    },
  },
  details:
    `Recordings are the files directly in <folder> named ${Object.keys(CONTENT_TYPES).join(', ')}.\n` +
    'Hidden files, temporary names (.part, .crdownload, .download, .tmp, ~) and subfolders (the\n' +
    'done folder among them) are ignored. A file is sent once its size and modification time have\n' +
    'not changed between two looks --settle-seconds apart, so a file still being copied is never\n' +
    'sent early. The folder is rescanned every --poll-seconds, and also on file-system events where\n' +
    'the system delivers them (not for changes made by other machines on network shares).\n' +
    '\n' +
    'Each recording is sent exactly once: its SHA-256 is kept in a state file, and its note ID is\n' +
    'derived from it, so a restart, a crash mid-upload, a renamed file or a copy never makes a second\n' +
    'note. State file: $XDG_CONFIG_HOME/notes-cli (default ~/.config/notes-cli; %APPDATA% on Windows),\n' +
    'watch-<hash of the folder and NOTES_BASE_URL>.json, rewritten atomically after every change.\n' +
    '\n' +
    'stdout: one JSON line per file when the watcher is done with it: {"file", "sha256", "note_id",\n' +
    '"status"} with status submitted (uploaded; without --wait or move), completed (with --wait:\n' +
    'and the transcript; with --after move: and moved_to), duplicate (same content as duplicate_of:\n' +
    'not sent again) or failed (with "error": {"exit_code", "message"}). Progress is on stderr.\n' +
    '--after move moves a file only once its transcription completed; a failed one stays.\n' +
    '\n' +
    'A service that is down (network errors, 429, 5xx) is waited for with backoff, said once on\n' +
    'stderr; no file is dropped. With --once it exits 8 instead, and the next run goes on from where\n' +
    'it stopped. Ctrl-C or SIGTERM stops it at once, abandoning an upload in progress (it is redone\n' +
    'on the next start, to the same note), and exits 130 or 143. --once exits 0, or with the code of\n' +
    'the first file that failed.',
  examples: [
    'notes watch ~/Recordings',
    'notes watch /mnt/share/dictaphone --collection Meetings --after move --speakers 2',
    'notes watch ./inbox --once --wait > transcripts.jsonl',
  ],
  async run({ positionals, values, env, client }) {
    const shownFolder = positionals[0] ?? '';
    const folder = resolve(shownFolder);
    await requireDirectory(folder, shownFolder);
    const after = oneOf(stringOption(values, 'after') ?? 'leave', AFTER, '--after', COMMAND);
    const doneOption = stringOption(values, 'done-folder');
    if (doneOption !== undefined && after !== 'move') {
      throw new UsageError('--done-folder is used with --after move only', COMMAND);
    }
    const doneFolder = resolve(doneOption ?? resolve(folder, 'done'));
    if (doneFolder === folder) throw new UsageError('--done-folder must not be the watched folder', COMMAND);
    const speakers = integerOption(values, 'speakers', 1, 10, COMMAND);
    const pollSeconds = integerOption(values, 'poll-seconds', 2, 3600, COMMAND) ?? DEFAULT_POLL_SECONDS;
    const settleSeconds = integerOption(values, 'settle-seconds', 1, 3600, COMMAND) ?? DEFAULT_SETTLE_SECONDS;
    const once = flag(values, 'once');
    const collection = stringOption(values, 'collection');
    const stateFile = stringOption(values, 'state-file');

    const api = once ? client() : withoutClientRetries(client());
    const state = await WatchState.load(
      stateFile === undefined ? defaultStatePath(folder, api.baseUrl, env) : resolve(stateFile),
      { folder, baseUrl: api.baseUrl },
    );
    const stop = stopOnSignals();
    /** @type {import('../watch/service-outage.mjs').OutageGuard} */
    const guard = once ? { run: (work) => work() } : createOutageGuard(stop.signal);

    const work = (async () => {
      // The key is checked before any file is looked at (exit 3 at once, not at the first file).
      await guard.run(() => api.request('GET', '/v1/account', { what: 'auth status' }));
      const collectionId =
        collection === undefined
          ? undefined
          : await guard.run(() => collectionIdOf(api, collection, COMMAND));
      info(
        `Watching ${shownFolder}: a recording is sent once unchanged for ${settleSeconds} s; ` +
          `rescanning every ${pollSeconds} s${once ? ', once' : ''}. State: ${state.path}` +
          (after === 'move' ? `. Done folder: ${doneFolder}` : ''),
      );
      const settings = {
        folder,
        shownFolder,
        speakers,
        collectionId,
        after,
        doneFolder,
        wait: flag(values, 'wait'),
        pollMs: pollSeconds * 1000,
        settleMs: settleSeconds * 1000,
        once,
        retryFailed: flag(values, 'retry-failed'),
      };
      return new FolderWatcher(api, state, settings, stop.signal, guard).run();
    })();

    try {
      const code = await Promise.race([work, stop.stopped]);
      if (code !== undefined) return code;
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    } finally {
      stop.dispose();
      await state.close();
    }
    // Stopped by a signal. The work still running (an upload, a hash) is abandoned: its file is
    // still `uploading` in the state, so the next start sends it again, to the same note.
    work.catch(() => {});
    info(`Stopped. State saved in ${state.path}.`);
    await new Promise((flushed) => process.stdout.write('', flushed));
    process.exit(EXIT_BY_SIGNAL[/** @type {'SIGINT' | 'SIGTERM'} */ (stop.signal.reason)]);
  },
};

/**
 * Ctrl-C (SIGINT) and SIGTERM abort `signal` (its reason: the signal's name) and resolve `stopped`.
 * A second Ctrl-C, once the handlers are gone, ends the process the default way.
 * @returns {{ signal: AbortSignal, stopped: Promise<undefined>, dispose: () => void }}
 */
function stopOnSignals() {
  const controller = new AbortController();
  /** @type {Promise<undefined>} */
  const stopped = new Promise((resolveStopped) =>
    controller.signal.addEventListener('abort', () => resolveStopped(undefined), { once: true }),
  );
  /** @param {'SIGINT' | 'SIGTERM'} name */
  const stop = (name) => {
    info(`${name}: stopping.`);
    controller.abort(name);
  };
  const onInterrupt = () => stop('SIGINT');
  const onTerminate = () => stop('SIGTERM');
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onTerminate);
  return {
    signal: controller.signal,
    stopped,
    dispose: () => {
      process.removeListener('SIGINT', onInterrupt);
      process.removeListener('SIGTERM', onTerminate);
    },
  };
}

/**
 * @param {string} folder absolute
 * @param {string} shown as given
 */
async function requireDirectory(folder, shown) {
  try {
    if ((await stat(folder)).isDirectory()) return;
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    throw new UsageError(`cannot read the folder '${shown}'${code ? ` (${code})` : ''}`, COMMAND);
  }
  throw new UsageError(`'${shown}' is not a folder`, COMMAND);
}

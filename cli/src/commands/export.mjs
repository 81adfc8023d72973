// @ts-check
import { mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { flag, integerOption, stringOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { EXIT } from '../exit-codes.mjs';
import { exportPass } from '../export/export-pass.mjs';
import { notesSource } from '../export/notes-source.mjs';
import { loadState, STATE_FILE_NAME, saveState } from '../export/state.mjs';
import { stopOnSignals, watchUntilStopped } from '../export/watch.mjs';
import { info, printJsonLine } from '../output.mjs';

const DEFAULT_POLL_SECONDS = 30;
/** The service's polling rule: never more often than every 2 seconds. */
const MIN_POLL_SECONDS = 2;

/** @type {import('../types.mjs').CommandSpec} */
export const exportNotes = {
  name: 'export',
  summary: 'Export every transcribed note to a folder of Markdown files (an Obsidian or Logseq vault)',
  operation: 'listNotes, getNote',
  args: ['<folder>'],
  options: {
    watch: {
      type: 'boolean',
      description: 'Keep exporting as notes complete or change, until Ctrl-C',
    },
    'poll-seconds': {
      type: 'string',
      value: 'S',
      description: `With --watch: look for changes every S seconds, at least ${MIN_POLL_SECONDS} (default ${DEFAULT_POLL_SECONDS})`,
    },
    collection: {
      type: 'string',
      value: 'C',
      description: 'Only the notes in this collection (its ID or name)',
    },
    'with-insights': {
      type: 'boolean',
      description:
        'Generate Insights for notes that have none (generateInsights); otherwise none are generated',
    },
    'app-url': {
      type: 'string',
      value: 'URL',
      description: "The web app's address for each file's link back (default NOTES_BASE_URL)",
    },
  },
  details: [
    'One file per note whose transcription completed (not trashed): YAML front matter (title, note_id,',
    'created, duration, speakers, collections, url, transcript_revision, insights_generated_at), the',
    'Insights that exist (summary, action items, decisions, open questions, key points), and the',
    'transcript with speakers and timestamps. File names come from the titles, made safe and unique',
    '(" (3f2b8c1e)" added when taken); a note keeps its file name, also when renamed.',
    '',
    `The state (${STATE_FILE_NAME} in the folder) records each note's file and a SHA-256 of what was`,
    'written. A note that changed (correction, newer Insights, rename, speaker names) is written again,',
    'unless the person edited its file since: then the file is kept (status kept-edited) and the new',
    'version goes beside it as "<name>.conflict.md". Delete an edited file to take the new version.',
    'Files of notes trashed or deleted in the service are left where they are, and reported.',
    '',
    'stdout: one JSON line per note: {"note_id", "title", "file", "status"} with status written,',
    'updated, unchanged, kept-edited, trashed, deleted, transcript-removed, not-in-collection or',
    'failed. With --watch only the lines of notes that changed. Ctrl-C (or SIGTERM) stops after the',
    'note at hand, saves the state and exits 130 (143); a second Ctrl-C stops at once.',
  ].join('\n'),
  examples: [
    'notes export ~/Vault/Meetings',
    'notes export ~/Vault/Meetings --watch --poll-seconds 60',
    'notes export ~/Vault/Product --collection Product --with-insights',
  ],
  async run({ positionals, values, client }) {
    const command = 'export';
    const folder = resolve(positionals[0] ?? '');
    if (!(positionals[0] ?? '').trim()) throw new UsageError('give the folder to export to', command);
    const watching = flag(values, 'watch');
    const pollSeconds = integerOption(values, 'poll-seconds', MIN_POLL_SECONDS, 86_400, command);
    if (pollSeconds !== undefined && !watching) {
      throw new UsageError('--poll-seconds goes with --watch', command);
    }
    const appUrlOption = stringOption(values, 'app-url');
    if (appUrlOption !== undefined) checkHttpUrl(appUrlOption, command);
    ensureFolder(folder, command);

    const api = client();
    const appUrl = (appUrlOption ?? api.baseUrl).replace(/\/+$/, '');
    const state = loadState(folder, api.baseUrl);
    const stop = stopOnSignals((exitCode) => {
      saveState(folder, state);
      info('Stopped at once; the export state is saved.');
      process.exit(exitCode);
    });
    const report = watching ? changesReporter() : everyNoteReporter();
    const context = {
      folder,
      state,
      source: notesSource(api, { quick: watching }),
      collection: stringOption(values, 'collection'),
      appUrl,
      withInsights: flag(values, 'with-insights'),
      insightsRequested: new Set(),
      stopping: stop.requested,
      report: report.line,
    };
    try {
      if (!watching) {
        info(`Exporting to ${folder}...`);
        await exportPass(context);
        report.summary(folder);
        if (stop.requested()) return stop.exitCode();
        return report.failed() ? EXIT.UNEXPECTED : EXIT.OK;
      }
      const pollMs = (pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000;
      info(`Watching: exporting to ${folder} every ${pollMs / 1000} s (Ctrl-C to stop).`);
      await watchUntilStopped({
        pass: async () => {
          await exportPass(context);
          report.summary(folder);
        },
        pollMs,
        stop,
      });
      info('Stopped; the export state is saved.');
      return stop.exitCode();
    } finally {
      stop.dispose();
    }
  },
};

/**
 * @param {string} value
 * @param {string} command
 */
function checkHttpUrl(value, command) {
  /** @type {URL | undefined} */
  let url;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--app-url must be an http:// or https:// URL, not '${value}'`, command);
  }
}

/**
 * Creates the folder when it does not exist.
 * @param {string} folder
 * @param {string} command
 */
function ensureFolder(folder, command) {
  mkdirSync(folder, { recursive: true });
  if (!statSync(folder).isDirectory()) throw new UsageError(`${folder} is not a folder`, command);
}

/**
 * Says on stderr what a line means for the person, when it is more than a file written.
 * @param {import('../export/export-pass.mjs').NoteOutcome} outcome
 */
function explain(outcome) {
  const file = outcome.file ?? '(no file)';
  switch (outcome.status) {
    case 'written':
    case 'updated':
      info(`${outcome.status}: ${file}`);
      break;
    case 'kept-edited':
      info(
        `kept: ${file} was edited since the last export and is not overwritten` +
          (outcome.conflict_file ? `; the service's version is in ${outcome.conflict_file}` : ''),
      );
      break;
    case 'trashed':
    case 'deleted':
      info(`left: note ${outcome.note_id} was ${outcome.status} in the service; ${file} stays as it is`);
      break;
    case 'transcript-removed':
      info(`left: note ${outcome.note_id} has no completed transcript now; ${file} stays as it is`);
      break;
    case 'not-in-collection':
      info(`left: note ${outcome.note_id} is not in the collection; ${file} stays as it is`);
      break;
    case 'failed':
      info(`failed: ${file}: ${outcome.error ?? 'unknown error'}`);
      break;
    default:
      break;
  }
}

/** One-off export: a line for every note, and a count at the end. */
function everyNoteReporter() {
  /** @type {Record<string, number>} */
  const counts = {};
  return {
    /** @param {import('../export/export-pass.mjs').NoteOutcome} outcome */
    line(outcome) {
      printJsonLine(outcome);
      explain(outcome);
      counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
    },
    failed: () => (counts.failed ?? 0) > 0,
    /** @param {string} folder */
    summary(folder) {
      const parts = Object.entries(counts).map(([status, count]) => `${count} ${status}`);
      info(`Exported to ${folder}: ${parts.length ? parts.join(', ') : 'no transcribed notes'}.`);
    },
  };
}

/**
 * --watch: a line when a note's file was written or its status changed, so that a note kept
 * because it was edited is not reported again at every poll.
 */
function changesReporter() {
  /** @type {Map<string, string>} */
  const last = new Map();
  let changed = 0;
  return {
    /**
     * @param {import('../export/export-pass.mjs').NoteOutcome} outcome
     * @param {boolean} wrote
     */
    line(outcome, wrote) {
      const key = `${outcome.status} ${outcome.file} ${outcome.conflict_file ?? ''}`;
      const previous = last.get(outcome.note_id);
      last.set(outcome.note_id, key);
      // `unchanged` is news only after a status that said the file was not in step.
      const inStep = previous === undefined || /^(written|updated|unchanged) /.test(previous);
      if (!wrote && (previous === key || (outcome.status === 'unchanged' && inStep))) return;
      printJsonLine(outcome);
      explain(outcome);
      changed++;
    },
    failed: () => false,
    /** @param {string} folder */
    summary(folder) {
      if (changed) info(`${folder}: ${changed} change${changed === 1 ? '' : 's'}.`);
      changed = 0;
    },
  };
}

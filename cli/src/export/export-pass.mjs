// @ts-check
import { existsSync } from 'node:fs';
import { mapWithLimit } from '../concurrency.mjs';
import { info } from '../output.mjs';
import { conflictFileName, nameKey, newFileName } from './file-names.mjs';
import { LAYOUT, renderNote } from './markdown.mjs';
import { syncNoteFile, UNKNOWN_CONTENT } from './note-file.mjs';
import { saveState, sha256 } from './state.mjs';
import { entryNames, findMovedFiles, pathIn, readIfPresent } from './vault-files.mjs';

/** Notes read at once; files are then written one at a time, in a fixed order. */
const READS_AT_ONCE = 4;
/** Notes read ahead of writing their files (so that a large account is not all in memory). */
const BATCH_SIZE = 16;

/**
 * @typedef {'written' | 'updated' | 'unchanged' | 'kept-edited' | 'trashed' | 'deleted'
 *   | 'transcript-removed' | 'not-in-collection' | 'failed'} ExportStatus
 *
 * @typedef {object} NoteOutcome one JSON line on stdout
 * @property {string} note_id
 * @property {string} title
 * @property {string | null} file
 * @property {ExportStatus} status
 * @property {string} [conflict_file]
 * @property {string} [error]
 *
 * @typedef {object} ExportContext
 * @property {string} folder
 * @property {import('./state.mjs').ExportState} state changed in place; saved at the end of the pass
 * @property {import('./notes-source.mjs').NotesSource} source
 * @property {string | undefined} collection `--collection`: an ID or a name
 * @property {string} appUrl
 * @property {boolean} withInsights
 * @property {Set<string>} insightsRequested notes whose Insights this process asked for already
 * @property {() => boolean} stopping whether to stop after the note at hand (Ctrl-C)
 * @property {(outcome: NoteOutcome, wroteSomething: boolean) => void} report
 */

/**
 * One export of every completed note: reads what changed, writes what may be written, and saves
 * the state, also when the pass stops early (an error, Ctrl-C).
 * @param {ExportContext} context
 * @returns {Promise<NoteOutcome[]>}
 */
export async function exportPass(context) {
  const { state } = context;
  const layout = `${LAYOUT} ${context.appUrl}`;
  const layoutChanged = state.layout !== layout;
  /** @type {NoteOutcome[]} */
  const outcomes = [];
  const record = (/** @type {NoteOutcome} */ outcome, /** @type {boolean} */ wrote) => {
    outcomes.push(outcome);
    context.report(outcome, wrote);
  };
  try {
    const collectionId =
      context.collection === undefined ? undefined : await context.source.collectionId(context.collection);
    const listed = await context.source.listAll(collectionId);
    const completed = listed
      .filter((note) => note.transcription_status === 'completed')
      .sort((a, b) => a.created_at - b.created_at || a.note_id.localeCompare(b.note_id));
    findFilesByNoteId(context, completed);
    const taken = takenNames(context);

    // Oldest first, so that of two notes with one title the older keeps the plain name.
    for (let start = 0; start < completed.length && !context.stopping(); start += BATCH_SIZE) {
      const batch = completed.slice(start, start + BATCH_SIZE);
      const fetched = await mapWithLimit(batch, READS_AT_ONCE, (summary) =>
        fetchNote(context, summary.note_id, layoutChanged),
      );
      for (const [index, result] of fetched.entries()) {
        if (context.stopping()) break;
        const summary = /** @type {import('./notes-source.mjs').NoteSummary} */ (batch[index]);
        const { outcome, wrote } = placeNote(context, summary, result, taken);
        record(outcome, wrote);
      }
    }
    if (!context.stopping()) {
      const present = new Set(listed.map((note) => note.note_id));
      const completedIds = new Set(completed.map((note) => note.note_id));
      for (const [noteId, entry] of Object.entries(state.notes)) {
        if (completedIds.has(noteId) || context.stopping()) continue;
        const outcome = await noteLeft(context, noteId, entry, present.has(noteId));
        if (outcome) record(outcome, false);
      }
    }
    // Only a whole pass renders every note with this layout; a stopped one leaves that to the next.
    if (!context.stopping()) state.layout = layout;
  } finally {
    saveState(context.folder, state);
  }
  return outcomes;
}

/**
 * getNote for a note to export: If-None-Match with the exported version's ETag when its file is
 * there to compare, and the Insights asked for first with `--with-insights`.
 * @param {ExportContext} context
 * @param {string} noteId
 * @param {boolean} layoutChanged
 */
async function fetchNote(context, noteId, layoutChanged) {
  const entry = context.state.notes[noteId];
  const fileThere = entry ? existsSync(pathIn(context.folder, entry.file)) : false;
  const knownEtag = entry && !entry.left && fileThere && !layoutChanged ? entry.note_etag : null;
  let result = await context.source.get(noteId, knownEtag);
  if (
    result.status === 'changed' &&
    context.withInsights &&
    !result.note.insights &&
    result.note.state === 'active' &&
    !context.insightsRequested.has(noteId)
  ) {
    context.insightsRequested.add(noteId);
    info(`Requesting Insights for note ${noteId} (--with-insights).`);
    if (await context.source.requestInsights(noteId)) result = await context.source.get(noteId, null);
  }
  return result;
}

/**
 * Writes (or keeps) one note's file after its read, and records it in the state.
 * @param {ExportContext} context
 * @param {import('./notes-source.mjs').NoteSummary} summary
 * @param {Awaited<ReturnType<typeof fetchNote>>} result
 * @param {Set<string>} taken name keys in use in the folder
 * @returns {{ outcome: NoteOutcome, wrote: boolean }}
 */
function placeNote(context, summary, result, taken) {
  const { state, folder } = context;
  const noteId = summary.note_id;
  const entry = state.notes[noteId];
  const base = { note_id: noteId, title: summary.title, file: entry?.file ?? null };
  if (result.status === 'deleted') return { outcome: leave(context, noteId, 'deleted', base), wrote: false };
  if (result.status === 'unchanged' && entry) {
    const onDisk = readIfPresent(pathIn(folder, entry.file));
    const edited = onDisk !== null && sha256(onDisk) !== entry.sha256;
    const outcome = /** @type {NoteOutcome} */ ({ ...base, status: edited ? 'kept-edited' : 'unchanged' });
    if (edited && entry.conflict) outcome.conflict_file = entry.conflict.file;
    return { outcome, wrote: false };
  }
  if (result.status !== 'changed') return { outcome: { ...base, status: 'unchanged' }, wrote: false };
  const note = result.note;
  if (note.state === 'trashed') return { outcome: leave(context, noteId, 'trashed', base), wrote: false };
  if (!note.transcription) {
    return { outcome: leave(context, noteId, 'transcript-removed', base), wrote: false };
  }
  try {
    const { outcome, entry: next } = syncNoteFile(
      folder,
      entry && { ...entry, left: undefined },
      {
        content: renderNote(note, { appUrl: context.appUrl }),
        title: note.title,
        note_etag: result.etag,
        transcript_revision: note.transcription.revision ?? 0,
        insights_generated_at: note.insights?.generated_at ?? null,
      },
      () => newFileName(note.title, noteId, (name) => taken.has(nameKey(name))),
    );
    state.notes[noteId] = withoutUndefined(next);
    taken.add(nameKey(outcome.file));
    taken.add(nameKey(conflictFileName(outcome.file)));
    const wrote = outcome.status === 'written' || outcome.status === 'updated' || !!outcome.conflict_written;
    /** @type {NoteOutcome} */
    const line = { note_id: noteId, title: note.title, file: outcome.file, status: outcome.status };
    if (outcome.conflict_file) line.conflict_file = outcome.conflict_file;
    return { outcome: line, wrote };
  } catch (error) {
    // A file that cannot be written (permissions, full disk) fails that note only.
    const message = error instanceof Error ? error.message : String(error);
    return { outcome: { ...base, title: note.title, status: 'failed', error: message }, wrote: false };
  }
}

/**
 * A note of the state that is no longer among the completed notes listed: trashed, deleted, its
 * transcript removed, or (with --collection) out of the collection. Its file stays; the note is
 * reported, and read only the first time it is missed.
 * @param {ExportContext} context
 * @param {string} noteId
 * @param {import('./state.mjs').ExportedNote} entry
 * @param {boolean} listed whether listNotes still has it (so its transcription is not completed)
 * @returns {Promise<NoteOutcome | null>}
 */
async function noteLeft(context, noteId, entry, listed) {
  const base = { note_id: noteId, title: entry.title, file: entry.file };
  if (listed) return leave(context, noteId, 'transcript-removed', base);
  // Deleted is final; a trashed note may be restored (listed again) or deleted since.
  if (entry.left && entry.left !== 'trashed') return { ...base, status: entry.left };
  const result = await context.source.get(noteId, null);
  if (result.status === 'deleted') return leave(context, noteId, 'deleted', base);
  if (result.status !== 'changed') return null;
  if (result.note.state === 'trashed') return leave(context, noteId, 'trashed', base);
  if (!result.note.transcription) return leave(context, noteId, 'transcript-removed', base);
  return leave(context, noteId, 'not-in-collection', base);
}

/**
 * Records why a note is no longer exported; its file is left as it is.
 * @param {ExportContext} context
 * @param {string} noteId
 * @param {NonNullable<import('./state.mjs').ExportedNote['left']>} reason
 * @param {{ note_id: string, title: string, file: string | null }} base
 * @returns {NoteOutcome}
 */
function leave(context, noteId, reason, base) {
  const entry = context.state.notes[noteId];
  if (entry) entry.left = reason;
  return { ...base, status: reason };
}

/**
 * Finds files by the `note_id` of their front matter (vault-files.mjs `findMovedFiles`), for
 * - notes whose file is not where the state says: the person renamed or moved it in the vault, and
 *   the export updates it there instead of writing it again;
 * - notes the state does not know that have a file: the state was lost (or an interrupted export
 *   could not save it). The file is taken back as possibly edited, so it is only replaced when it
 *   already holds what would be written; a newer version goes beside it.
 * @param {ExportContext} context
 * @param {import('./notes-source.mjs').NoteSummary[]} completed
 */
function findFilesByNoteId(context, completed) {
  const { state, folder } = context;
  const unknown = new Map(completed.filter((note) => !state.notes[note.note_id]).map((n) => [n.note_id, n]));
  const wanted = new Set(unknown.keys());
  for (const [noteId, entry] of Object.entries(state.notes)) {
    if (!existsSync(pathIn(folder, entry.file))) wanted.add(noteId);
  }
  if (wanted.size === 0) return;
  for (const [noteId, file] of findMovedFiles(folder, wanted)) {
    const entry = state.notes[noteId];
    if (entry) {
      info(`Note ${noteId}: its file ${entry.file} is now ${file}; the export follows it.`);
      entry.file = file;
      continue;
    }
    const summary = unknown.get(noteId);
    if (!summary) continue;
    info(`Note ${noteId}: ${file} holds it but the export state did not; taken back as it is.`);
    state.notes[noteId] = {
      file,
      title: summary.title,
      sha256: UNKNOWN_CONTENT,
      note_etag: null,
      transcript_revision: null,
      insights_generated_at: null,
      exported_at: 0,
    };
  }
}

/**
 * Name keys in use: every entry of the folder (files the export did not write included) and every
 * file of the state with its conflict copy.
 * @param {ExportContext} context
 * @returns {Set<string>}
 */
function takenNames(context) {
  const taken = new Set(entryNames(context.folder).map(nameKey));
  for (const entry of Object.values(context.state.notes)) {
    taken.add(nameKey(entry.file));
    taken.add(nameKey(conflictFileName(entry.file)));
    if (entry.conflict) taken.add(nameKey(entry.conflict.file));
  }
  return taken;
}

/**
 * JSON.stringify drops undefined properties anyway; this keeps the in-memory state equal to the
 * saved one.
 * @template {object} T
 * @param {T} value
 * @returns {T}
 */
function withoutUndefined(value) {
  return /** @type {T} */ (Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)));
}

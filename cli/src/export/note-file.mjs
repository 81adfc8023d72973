// @ts-check
import { conflictFileName } from './file-names.mjs';
import { sha256 } from './state.mjs';
import { pathIn, readIfPresent, removeIfPresent, writeFileAtomically } from './vault-files.mjs';

/**
 * One note's file: written when new or when the note changed, and never overwritten once the person
 * edited it. Everything here is synchronous (see vault-files.mjs).
 *
 * The rule: the state keeps the SHA-256 of what the export last wrote. A file whose content still
 * has it is the export's to replace; any other content is the person's.
 */

/** The `sha256` of a file taken back without knowing what the export wrote: it counts as edited. */
export const UNKNOWN_CONTENT = '';

/**
 * @typedef {'written' | 'updated' | 'unchanged' | 'kept-edited'} FileStatus
 *
 * @typedef {object} FileOutcome
 * @property {FileStatus} status
 * @property {string} file
 * @property {string} [conflict_file] where the newer version was written beside an edited file
 * @property {boolean} [conflict_written] whether this pass wrote it
 *
 * @typedef {object} RenderedNote
 * @property {string} content the Markdown
 * @property {string} title
 * @property {string | null} note_etag
 * @property {number | null} transcript_revision
 * @property {number | null} insights_generated_at
 */

/**
 * Brings a note's file in step with `rendered`, or keeps it when the person edited it.
 * @param {string} folder
 * @param {import('./state.mjs').ExportedNote | undefined} entry what the state knows (undefined: new)
 * @param {RenderedNote} rendered
 * @param {() => string} newName the file name for a note without one
 * @returns {{ outcome: FileOutcome, entry: import('./state.mjs').ExportedNote }}
 */
export function syncNoteFile(folder, entry, rendered, newName) {
  const sha = sha256(rendered.content);
  const written = (/** @type {string} */ file) => ({
    file,
    title: rendered.title,
    sha256: sha,
    note_etag: rendered.note_etag,
    transcript_revision: rendered.transcript_revision,
    insights_generated_at: rendered.insights_generated_at,
    exported_at: Date.now(),
  });

  if (!entry) {
    const file = newName();
    writeFileAtomically(pathIn(folder, file), rendered.content);
    return { outcome: { status: 'written', file }, entry: written(file) };
  }

  const onDisk = readIfPresent(pathIn(folder, entry.file));
  // Deleted by the person (a move is followed before this): written again, as the way to take the
  // service's version over an edited file is to delete it.
  if (onDisk === null) {
    writeFileAtomically(pathIn(folder, entry.file), rendered.content);
    removeStaleConflict(folder, entry);
    return { outcome: { status: 'written', file: entry.file }, entry: written(entry.file) };
  }
  const diskSha = sha256(onDisk);
  // Already this content (written before an interruption saved the state, or merged by the person).
  if (diskSha === sha) {
    removeStaleConflict(folder, entry);
    const status = entry.sha256 === sha || entry.sha256 === UNKNOWN_CONTENT ? 'unchanged' : 'updated';
    return {
      outcome: { status, file: entry.file },
      entry: { ...written(entry.file), exported_at: status === 'unchanged' ? entry.exported_at : Date.now() },
    };
  }
  if (diskSha === entry.sha256) {
    writeFileAtomically(pathIn(folder, entry.file), rendered.content);
    removeStaleConflict(folder, entry);
    return { outcome: { status: 'updated', file: entry.file }, entry: written(entry.file) };
  }
  return keepEdited(folder, entry, rendered, sha);
}

/**
 * The person edited the file: it stays as they left it. A version of the note newer than the one
 * they edited goes beside it (`<name>.conflict.md`), to compare or merge, unless they edited that
 * copy too.
 * @param {string} folder
 * @param {import('./state.mjs').ExportedNote} entry
 * @param {RenderedNote} rendered
 * @param {string} sha
 * @returns {{ outcome: FileOutcome, entry: import('./state.mjs').ExportedNote }}
 */
function keepEdited(folder, entry, rendered, sha) {
  const seen = { ...entry, note_etag: rendered.note_etag };
  if (sha === entry.sha256) {
    // Nothing newer than what the person started from.
    const { conflict: _stale, ...rest } = seen;
    removeStaleConflict(folder, entry);
    return { outcome: { status: 'kept-edited', file: entry.file }, entry: rest };
  }
  const conflictFile = entry.conflict?.file ?? siblingConflictName(entry.file);
  if (entry.conflict?.sha256 === sha) {
    return { outcome: { status: 'kept-edited', file: entry.file, conflict_file: conflictFile }, entry: seen };
  }
  const existing = readIfPresent(pathIn(folder, conflictFile));
  const conflictIsOurs = existing === null || sha256(existing) === entry.conflict?.sha256;
  if (!conflictIsOurs) {
    return { outcome: { status: 'kept-edited', file: entry.file, conflict_file: conflictFile }, entry: seen };
  }
  writeFileAtomically(pathIn(folder, conflictFile), rendered.content);
  return {
    outcome: { status: 'kept-edited', file: entry.file, conflict_file: conflictFile, conflict_written: true },
    entry: { ...seen, conflict: { file: conflictFile, sha256: sha } },
  };
}

/**
 * Removes the conflict copy once the file is in step again, if the person left it as written (an
 * edited copy is theirs and stays).
 * @param {string} folder
 * @param {import('./state.mjs').ExportedNote} entry
 */
function removeStaleConflict(folder, entry) {
  if (!entry.conflict) return;
  const path = pathIn(folder, entry.conflict.file);
  const existing = readIfPresent(path);
  if (existing !== null && sha256(existing) === entry.conflict.sha256) removeIfPresent(path);
}

/**
 * @param {string} file `/`-separated
 * @returns {string}
 */
function siblingConflictName(file) {
  const slash = file.lastIndexOf('/');
  return file.slice(0, slash + 1) + conflictFileName(file.slice(slash + 1));
}

import type { NoteWithItems } from '../ports/note-store.ts';
import { filedCollections, notesInCollection } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import { matchesPartOf, type TagCondition } from './entity-tags.ts';
import { NotFoundError, PreconditionFailedError } from './errors.ts';
import { JOB_KINDS } from './job.ts';
import { deleteJobOfKind } from './job-transitions.ts';
import { insightsLost, transcriptLost } from './lost-results.ts';
import type { Note, NoteChanges, NoteState } from './note.ts';
import { syncNoteIndex } from './note-index.ts';
import { requireNoteWithItems } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';
import { readInsights, readTranscriptionAt } from './stored-results.ts';
import { type NoteSummaryView, type NoteView, noteEntityTag, noteSummaryView, noteView } from './views.ts';
import { matchesEndedByNames } from './voice-matches.ts';

export async function listNotes(
  deps: DomainDeps,
  accountId: string,
  query: {
    state: NoteState;
    limit: number;
    cursor?: string | undefined;
    collection_id?: string | undefined;
  },
): Promise<{ notes: NoteSummaryView[]; next_cursor: string | null }> {
  const page = query.collection_id
    ? await notesInCollection(deps, accountId, query.collection_id, query)
    : await deps.notes.listNotes(accountId, query.state, query.limit, query.cursor);
  const jobs = await deps.notes.getJobs(
    accountId,
    page.notes.map((note) => note.note_id),
    'transcription',
  );
  return {
    notes: page.notes.map((note) => noteSummaryView(note, jobs.get(note.note_id) ?? null)),
    next_cursor: page.nextCursor,
  };
}

export async function getNote(deps: DomainDeps, accountId: string, noteId: string): Promise<NoteView> {
  return viewOfNote(deps, await requireNoteWithItems(deps, accountId, noteId));
}

/** The note as getNote shows it: with its transcription job, transcription and Insights. */
async function viewOfNote(deps: DomainDeps, { note, jobs, collectionIds }: NoteWithItems): Promise<NoteView> {
  const { account_id: accountId, note_id: noteId } = note;
  const storedJob = jobs.get('transcription') ?? null;
  const insightsJob = jobs.get('insights') ?? null;
  const [transcription, insights, filed] = await Promise.all([
    storedJob?.status === 'completed'
      ? readTranscriptionAt(deps, accountId, noteId, storedJob.transcript)
      : null,
    insightsJob?.status === 'completed' ? readInsights(deps, accountId, noteId) : null,
    filedCollections(deps, accountId, collectionIds),
  ]);
  // A result that can no longer be read shows as its job failed, with the way back in its detail.
  const job = storedJob && transcription === 'unreadable' ? await transcriptLost(deps, storedJob) : storedJob;
  if (insightsJob && insights === 'unreadable') await insightsLost(deps, insightsJob);
  return noteView(
    note,
    job,
    transcription === 'unreadable' ? null : transcription,
    insights === 'unreadable' || insights === null ? null : insights,
    filed,
  );
}

/**
 * Applies the changes. With `ifMatch` (the If-Match precondition) only while the note's current
 * representation still has one of the tags named, atomically: the write is conditional on the
 * version the compared representation was built from, so of two updates sent with the same tag
 * exactly one succeeds. Without it, changes apply to whatever is current (field by field).
 */
export async function updateNote(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  changes: NoteChanges,
  ifMatch?: TagCondition,
): Promise<NoteView> {
  const read = ifMatch || changes.speaker_names ? await requireNoteWithItems(deps, accountId, noteId) : null;
  // A person naming a speaker the service named after a known voice has the last word.
  const withMatches = read ? { ...changes, ...matchesEndedByNames(read.note, changes) } : changes;
  const updated =
    ifMatch && read
      ? await updateIfCurrent(deps, read, withMatches, ifMatch)
      : await deps.notes.updateNote(accountId, noteId, withMatches, deps.now());
  if (!updated) throw new NotFoundError(`No note with ID ${noteId}`);
  // Trashing or restoring moves the note between the index's partitions; a new title is re-indexed.
  if (changes.state !== undefined || changes.title !== undefined)
    await syncNoteIndex(deps, accountId, noteId);
  return getNote(deps, accountId, noteId);
}

async function updateIfCurrent(
  deps: DomainDeps,
  read: NoteWithItems,
  changes: NoteChanges,
  ifMatch: TagCondition,
): Promise<Note> {
  const current = noteEntityTag(await viewOfNote(deps, read));
  const updated = matchesPartOf(ifMatch, current)
    ? await deps.notes.updateNoteIf(read.note, changes, deps.now())
    : null;
  if (!updated) throw new PreconditionFailedError(NOTE_CHANGED);
  return updated;
}

const NOTE_CHANGED =
  'The note has changed since you read it (If-Match names an ETag that is no longer current), so nothing was changed. Read the note again (getNote), reapply your change to what it is now, and send its new ETag.';

/**
 * Permanent deletion. The jobs go first: a worker still busy with the note loses its claim, stops, and
 * removes what it wrote (see holdJob, completeJob). Then objects, then the remaining items, the note
 * item last, so an interrupted deletion leaves a note that can be deleted again rather than orphans.
 */
export async function deleteNote(deps: DomainDeps, accountId: string, noteId: string): Promise<void> {
  const { jobs } = await requireNoteWithItems(deps, accountId, noteId);
  await Promise.all(
    JOB_KINDS.map((kind) => deleteJobOfKind(deps, accountId, noteId, kind, jobs.get(kind) ?? null)),
  );
  await deps.search.remove(accountId, noteId);
  await deps.blobs.deletePrefix(objectKeys.notePrefix(accountId, noteId));
  await deps.notes.deleteNoteItems(accountId, noteId);
}

import type { DomainDeps } from './deps.ts';
import { NotFoundError } from './errors.ts';
import type { Insights } from './insights.ts';
import type { Note, NoteChanges, NoteState } from './note.ts';
import { syncNoteIndex } from './note-index.ts';
import { objectKeys } from './object-keys.ts';
import type { Transcription } from './transcript.ts';
import { type NoteSummaryView, type NoteView, noteSummaryView, noteView } from './views.ts';

export async function requireNote(deps: DomainDeps, accountId: string, noteId: string): Promise<Note> {
  const note = await deps.notes.getNote(accountId, noteId);
  if (!note) throw new NotFoundError(`No note with ID ${noteId}`);
  return note;
}

export async function listNotes(
  deps: DomainDeps,
  accountId: string,
  query: { state: NoteState; limit: number; cursor?: string | undefined },
): Promise<{ notes: NoteSummaryView[]; next_cursor: string | null }> {
  const page = await deps.notes.listNotes(accountId, query.state, query.limit, query.cursor);
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
  const note = await requireNote(deps, accountId, noteId);
  const [job, insightsJob] = await Promise.all([
    deps.notes.getJob(accountId, noteId, 'transcription'),
    deps.notes.getJob(accountId, noteId, 'insights'),
  ]);
  const [transcription, insights] = await Promise.all([
    job?.status === 'completed'
      ? deps.blobs.getJson<Transcription>(objectKeys.transcription(accountId, noteId))
      : null,
    insightsJob?.status === 'completed'
      ? deps.blobs.getJson<Insights>(objectKeys.insights(accountId, noteId))
      : null,
  ]);
  return noteView(note, job, transcription, insights);
}

export async function updateNote(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  changes: NoteChanges,
): Promise<NoteView> {
  const updated = await deps.notes.updateNote(accountId, noteId, changes, deps.now());
  if (!updated) throw new NotFoundError(`No note with ID ${noteId}`);
  // Trashed notes leave the Ask index; restored ones return to it.
  if (changes.state !== undefined) await syncNoteIndex(deps, accountId, noteId);
  return getNote(deps, accountId, noteId);
}

/**
 * Permanent deletion: objects first, then items, the note item last, so an interrupted deletion leaves
 * a note that can be deleted again rather than orphans nobody can reach.
 */
export async function deleteNote(deps: DomainDeps, accountId: string, noteId: string): Promise<void> {
  await requireNote(deps, accountId, noteId);
  await deps.search.remove(accountId, noteId);
  await deps.blobs.deletePrefix(objectKeys.notePrefix(accountId, noteId));
  await deps.notes.deleteNoteItems(accountId, noteId);
}

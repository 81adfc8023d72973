import type { NoteWithItems } from '../ports/note-store.ts';
import type { DomainDeps } from './deps.ts';
import { NotFoundError } from './errors.ts';
import type { Note } from './note.ts';

/** The note, or a 404 that names it: the first step of every use case on one note. */
export async function requireNote(deps: DomainDeps, accountId: string, noteId: string): Promise<Note> {
  const note = await deps.notes.getNote(accountId, noteId);
  if (!note) throw new NotFoundError(`No note with ID ${noteId}`);
  return note;
}

/** The note with its jobs and filings, in one read; NotFoundError when there is none. */
export async function requireNoteWithItems(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<NoteWithItems> {
  const found = await deps.notes.getNoteWithItems(accountId, noteId);
  if (!found) throw new NotFoundError(`No note with ID ${noteId}`);
  return found;
}

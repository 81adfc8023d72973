import type { DomainDeps } from './deps.ts';
import type { Note, NoteState } from './note.ts';

/**
 * The listed notes that have a completed transcription and are in one of the states, by ID: what Ask
 * and search check every note against before they use it, since the index may lag behind the notes.
 */
export async function processedNotes(
  deps: DomainDeps,
  accountId: string,
  noteIds: string[],
  states: readonly NoteState[] = ['active'],
): Promise<Map<string, Note>> {
  if (noteIds.length === 0) return new Map();
  const [notes, jobs] = await Promise.all([
    deps.notes.getNotes(accountId, noteIds),
    deps.notes.getJobs(accountId, noteIds, 'transcription'),
  ]);
  return new Map(
    [...notes].filter(([id, note]) => states.includes(note.state) && jobs.get(id)?.status === 'completed'),
  );
}

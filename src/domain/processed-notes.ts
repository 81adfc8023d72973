import type { DomainDeps } from './deps.ts';
import type { Job } from './job.ts';
import type { Note, NoteState } from './note.ts';

/** A note with its completed transcription job (which names the current transcript). */
export interface ProcessedNote {
  note: Note;
  job: Job;
}

/**
 * The listed notes that have a completed transcription and are in one of the states, by ID: what Ask
 * and search check every note against before they use it, since the index may lag behind the notes.
 */
export async function processedNotes(
  deps: DomainDeps,
  accountId: string,
  noteIds: string[],
  states: readonly NoteState[] = ['active'],
): Promise<Map<string, ProcessedNote>> {
  const processed = new Map<string, ProcessedNote>();
  if (noteIds.length === 0) return processed;
  const { notes, jobs } = await deps.notes.getNotesWithJobs(accountId, noteIds, 'transcription');
  for (const [id, note] of notes) {
    const job = jobs.get(id);
    if (states.includes(note.state) && job?.status === 'completed') processed.set(id, { note, job });
  }
  return processed;
}

import { type GivenInstructions, instructionsOf } from './collection-instructions.ts';
import { filedCollections } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError } from './errors.ts';
import type { Job } from './job.ts';
import type { Note } from './note.ts';

/**
 * What Insights and artifacts are made from: a completed transcription with speech in it. Refused
 * before anything is queued (409), so no run is spent on a transcript with nothing to read.
 */
export function requireSpeechToGenerateFrom(transcription: Job | null, what: 'Insights' | 'Artifacts'): void {
  if (transcription?.status !== 'completed') {
    throw new ConflictError(`${what} need a completed transcription: transcribe the note first`);
  }
  if (transcription.no_speech) {
    throw new ConflictError(
      `${what} need speech, and none was heard in this recording (music, tones or silence). Submit a recording with speech.`,
    );
  }
}

/**
 * What a generation worker makes a result for: the note, and the instructions of the collections it
 * is filed in now, in the stated order (src/domain/collection-instructions.ts). Null when the note is
 * gone.
 */
export async function generationSubject(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<{ note: Note; instructions: GivenInstructions[] } | null> {
  const found = await deps.notes.getNoteWithItems(accountId, noteId);
  if (!found) return null;
  const filed = await filedCollections(deps, accountId, found.collectionIds);
  return { note: found.note, instructions: instructionsOf(filed) };
}

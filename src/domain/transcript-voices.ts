import type { SpeakerVoice } from '../ports/speech-to-text.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError } from './errors.ts';
import type { Note } from './note.ts';
import { requireNoteWithItems } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';
import { readTranscriptionAt } from './stored-results.ts';
import type { Transcription } from './transcript.ts';
import { lost } from './transcript-revisions.ts';

export interface VoicedTranscript {
  note: Note;
  /** The current revision (corrections applied). */
  transcription: Transcription;
  /** The diarizer's voice of each turn (`voices.json`); empty when it kept none. */
  voices: SpeakerVoice[];
}

/**
 * A note's completed transcript, as corrected, with the voices kept beside it: what similar segments
 * and voice profiles compare. ConflictError when there is no completed transcription.
 */
export async function readVoicedTranscript(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<VoicedTranscript> {
  const { note, jobs } = await requireNoteWithItems(deps, accountId, noteId);
  const job = jobs.get('transcription');
  if (job?.status !== 'completed') {
    throw new ConflictError(
      'Only a completed transcription has voices: submit audio with submitTranscription and wait for it to complete',
    );
  }
  const transcription = await readTranscriptionAt(deps, accountId, noteId, job.transcript);
  if (transcription === 'unreadable') throw await lost(deps, job);
  const stored = await deps.blobs.getJson<{ voices: SpeakerVoice[] }>(objectKeys.voices(accountId, noteId));
  return { note, transcription, voices: stored?.voices ?? [] };
}

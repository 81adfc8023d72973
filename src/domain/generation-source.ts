import { ConflictError } from './errors.ts';
import type { Job } from './job.ts';

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

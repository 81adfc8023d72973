import type { Job } from './job.ts';
import type { Transcription } from './transcript.ts';

/**
 * Results generated from a transcript (Insights, artifacts) record which transcript they were made
 * from, so that they can say when they are older than the transcript: after a correction or an
 * undo (another revision), and after the transcript was lost and recognised again (another
 * recogniser run, whose revision numbers start from 0 again). Results stored before revisions
 * existed were made from the recogniser's output: revision 0; results and jobs stored before
 * recogniser runs were recorded have no run, and match each other.
 */
export interface MadeFromTranscript {
  transcript_revision?: number;
  /** The recogniser run (the transcription job's `recognition`); stored, never shown. */
  transcript_recognition?: string;
}

export interface RevisionState {
  transcript_revision: number;
  /** True when the transcript now current is not the one the result was made from. */
  outdated: boolean;
}

/** What a result made from this transcript (as readTranscription returns it) records. */
export function madeFrom(transcription: Transcription): MadeFromTranscript {
  return {
    transcript_revision: transcription.revision ?? 0,
    ...(transcription.recognition === undefined ? {} : { transcript_recognition: transcription.recognition }),
  };
}

export function withRevisionState<T extends MadeFromTranscript>(
  result: T,
  transcriptionJob: Job | null,
): Omit<T, 'transcript_recognition'> & RevisionState {
  const { transcript_recognition: recognition, ...shown } = result;
  const made = result.transcript_revision ?? 0;
  const current =
    made === (transcriptionJob?.transcript?.revision ?? 0) && recognition === transcriptionJob?.recognition;
  return { ...shown, transcript_revision: made, outdated: !current };
}

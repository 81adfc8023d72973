import type { DomainDeps } from './deps.ts';
import type { Job } from './job.ts';

/**
 * Results generated from a transcript (Insights, artifacts) record the revision they were made from,
 * so that after a correction they can say they are older than the transcript. Results stored
 * before revisions existed were made from the recogniser's output: revision 0.
 */
export interface MadeFromRevision {
  transcript_revision?: number;
}

export interface RevisionState {
  transcript_revision: number;
  /** True when the transcript's current revision is not the one the result was made from. */
  outdated: boolean;
}

/** The current revision of a transcription job's transcript (0 while uncorrected). */
export function currentRevision(transcriptionJob: Job | null): number {
  return transcriptionJob?.transcript?.revision ?? 0;
}

export function withRevisionState<T extends MadeFromRevision>(
  result: T,
  transcriptionJob: Job | null,
): T & RevisionState {
  const made = result.transcript_revision ?? 0;
  return { ...result, transcript_revision: made, outdated: made !== currentRevision(transcriptionJob) };
}

/** The same, reading the note's transcription job. */
export async function withCurrentRevisionState<T extends MadeFromRevision>(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  result: T,
): Promise<T & RevisionState> {
  return withRevisionState(result, await deps.notes.getJob(accountId, noteId, 'transcription'));
}

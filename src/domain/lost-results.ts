import type { DomainDeps } from './deps.ts';
import type { Job } from './job.ts';
import { syncNoteIndex } from './note-index.ts';
import { objectKeys } from './object-keys.ts';
import { failLostResult } from './stored-results.ts';

// A stored result that can no longer be read (missing or damaged) fails its job with a detail that
// says how to make it again; every use case that reads one calls these.

/**
 * The transcript of a completed job can no longer be read: the job fails with the way back (a new
 * submission transcribes the stored audio again) and the note leaves the Ask index meanwhile.
 */
export async function transcriptLost(deps: DomainDeps, job: Job): Promise<Job> {
  deps.warn?.('stored transcript unreadable; job marked failed', {
    noteId: job.note_id,
    object: objectKeys.transcription(job.account_id, job.note_id),
  });
  const failed = await failLostResult(deps, job, TRANSCRIPT_LOST);
  await syncNoteIndex(deps, job.account_id, job.note_id);
  return failed;
}

const TRANSCRIPT_LOST =
  'The stored transcript could not be read (missing or damaged). Submit the note again with the same note ID to transcribe its stored audio again.';

/** Stored Insights that can no longer be read: the job fails, and generateInsights runs it again. */
export function insightsLost(deps: DomainDeps, job: Job): Promise<Job> {
  deps.warn?.('stored Insights unreadable; job marked failed', {
    noteId: job.note_id,
    object: objectKeys.insights(job.account_id, job.note_id),
  });
  return failLostResult(
    deps,
    job,
    'The stored Insights could not be read (missing or damaged). Generate them again with generateInsights.',
  );
}

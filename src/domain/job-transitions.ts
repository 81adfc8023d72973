import type { DomainDeps } from './deps.ts';
import type { Job, JobKind } from './job.ts';

/**
 * The two ends of a job, shared by every kind. Both re-read and write conditionally, so a duplicate
 * worker, a user's resubmission or a deletion in between is noticed rather than overwritten.
 */

/**
 * Marks a processing job completed once its result is stored under `resultKey`. If the job was
 * deleted meanwhile (the note or its results were removed), the result is removed too.
 */
export async function completeJob(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: JobKind,
  resultKey: string,
): Promise<'completed' | 'skipped'> {
  for (;;) {
    const job = await deps.notes.getJob(accountId, noteId, kind);
    if (!job) {
      await deps.blobs.delete(resultKey);
      return 'skipped';
    }
    if (job.status !== 'processing') return 'skipped';
    const done: Job = { ...job, status: 'completed', stage: 'completed', updated_at: deps.now() };
    if (await deps.notes.replaceJob(job, done)) return 'completed';
  }
}

/** Ends an in-flight job as failed with a detail the user can act on. */
export async function failJob(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: JobKind,
  detail: string,
): Promise<'failed' | 'skipped'> {
  for (;;) {
    const job = await deps.notes.getJob(accountId, noteId, kind);
    if (!job || job.status === 'completed' || job.status === 'failed') return 'skipped';
    const failed: Job = { ...job, status: 'failed', stage: 'failed', detail, updated_at: deps.now() };
    if (await deps.notes.replaceJob(job, failed)) return 'failed';
  }
}

/**
 * Takes a queued job (or one left processing by a worker that died) for this attempt. Losing the
 * claim means another delivery or a resubmission got there first; it does the work.
 */
export async function claimJob(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: JobKind,
  stage: string,
): Promise<Job | null> {
  const job = await deps.notes.getJob(accountId, noteId, kind);
  if (!job || job.status === 'completed' || job.status === 'failed') return null;
  const claimed: Job = {
    ...job,
    status: 'processing',
    stage,
    attempts: job.attempts + 1,
    updated_at: deps.now(),
  };
  return (await deps.notes.replaceJob(job, claimed)) ? claimed : null;
}

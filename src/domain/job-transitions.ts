import type { DomainDeps } from './deps.ts';
import { isHeld, isSameAttempt, type Job, type JobKind } from './job.ts';

/**
 * The two ends of a job, shared by every kind. Both re-read and write conditionally, so a duplicate
 * worker, a user's resubmission or a deletion in between is noticed rather than overwritten. The
 * attempt number is the fencing token: a worker whose attempt was taken over can no longer change
 * the job.
 */

/** The job without what belongs to a run in progress (its lease, its progress or wait in a stage). */
function withoutRun(job: Job): Job {
  const {
    lease_expires_at: _lease,
    progress: _progress,
    waiting: _waiting,
    finish_tries: _tries,
    ...rest
  } = job;
  return rest;
}

/** How long a claim holds a job without a renewal, when the deps do not say. */
export const DEFAULT_JOB_LEASE_MS = 60_000;

export function leaseMs(deps: DomainDeps): number {
  return deps.jobLeaseMs ?? DEFAULT_JOB_LEASE_MS;
}

/**
 * Marks the job that `held` claimed completed once its results are stored. If the job was deleted
 * meanwhile (the note or its results were removed), the results written by this attempt are removed
 * too, so nothing the work wrote outlives the deletion.
 */
export async function completeJob(
  deps: DomainDeps,
  held: Job,
  resultKeys: string[],
  results: Pick<Job, 'recognition' | 'no_speech'> = {},
): Promise<'completed' | 'skipped'> {
  for (;;) {
    const job = await deps.notes.getJob(held.account_id, held.note_id, held.kind);
    if (!job) {
      await Promise.all(resultKeys.map((key) => deps.blobs.delete(key)));
      return 'skipped';
    }
    if (job.status !== 'processing' || !isSameAttempt(job, held)) return 'skipped';
    const done: Job = {
      ...withoutRun(job),
      ...results,
      status: 'completed',
      stage: 'completed',
      updated_at: deps.now(),
    };
    if (await deps.notes.replaceJob(job, done)) return 'completed';
  }
}

/**
 * Ends an in-flight job as failed with a detail the user can act on. With `held`, only while that
 * attempt still holds it (a worker's own failure); without (the dead-letter queue), only while no
 * live worker holds it: a newer run of a re-requested job is left to finish.
 */
export async function failJob(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: JobKind,
  detail: string,
  held?: Job,
): Promise<'failed' | 'skipped'> {
  for (;;) {
    const job = await deps.notes.getJob(accountId, noteId, kind);
    if (!job || job.status === 'completed' || job.status === 'failed') return 'skipped';
    if (held ? !isSameAttempt(job, held) : isHeld(job, deps.now())) return 'skipped';
    const failed: Job = {
      ...withoutRun(job),
      status: 'failed',
      stage: 'failed',
      detail,
      updated_at: deps.now(),
    };
    if (await deps.notes.replaceJob(job, failed)) return 'failed';
  }
}

/**
 * Takes a queued job, or one whose worker died (processing, lease run out), for a new attempt with a
 * fresh lease. Losing the claim means another delivery or a resubmission got there first, or a live
 * worker holds the job: it does the work.
 */
export async function claimJob(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: JobKind,
  stage: string,
): Promise<Job | null> {
  const job = await deps.notes.getJob(accountId, noteId, kind);
  const now = deps.now();
  if (!job || job.status === 'completed' || job.status === 'failed' || isHeld(job, now)) return null;
  const claimed: Job = {
    ...withoutRun(job),
    status: 'processing',
    stage,
    attempts: job.attempts + 1,
    first_claimed_at: job.first_claimed_at ?? now,
    updated_at: now,
    lease_expires_at: now + leaseMs(deps),
  };
  return (await deps.notes.replaceJob(job, claimed)) ? claimed : null;
}

/**
 * Puts a job back to `queued` (keeping its attempts) for the queue to run again, if it is still in
 * flight in the attempt of `job`: work stopped with the runtime, or a worker that died. Returns the
 * queued job, or null when it changed meanwhile (finished, deleted, taken by another attempt).
 */
export async function releaseJob(
  deps: DomainDeps,
  job: Job,
  stage: string,
  changes: Partial<Pick<Job, 'interruptions' | 'transient_reruns'>> = {},
): Promise<Job | null> {
  for (;;) {
    const current = await deps.notes.getJob(job.account_id, job.note_id, job.kind);
    if (!current || current.status !== job.status || !isSameAttempt(current, job)) return null;
    const queued: Job = {
      ...withoutRun(current),
      ...changes,
      status: 'queued',
      stage,
      updated_at: deps.now(),
    };
    if (await deps.notes.replaceJob(current, queued)) return queued;
  }
}

/** Deletes a note's job of this kind whatever its state: a worker holding it loses its claim. */
export async function deleteJobOfKind(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: JobKind,
  /** The job as the caller has just read it (null: there was none); otherwise it is read here. */
  known?: Job | null,
): Promise<void> {
  let job = known === undefined ? await deps.notes.getJob(accountId, noteId, kind) : known;
  while (job && !(await deps.notes.deleteJob(job))) {
    job = await deps.notes.getJob(accountId, noteId, kind);
  }
}

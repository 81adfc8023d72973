import type { DomainDeps } from './deps.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import type { Insights } from './insights.ts';
import { isInFlight, type Job, type JobStatusView, jobStatusView, queuedJob } from './job.ts';
import { requireNote } from './notes.ts';
import { objectKeys } from './object-keys.ts';
import { FailedJobError } from './transcription.ts';

/**
 * generateInsights: one Insights job per note. A job already queued or running is returned as it
 * is; otherwise (none yet, completed, failed) a new run starts and will replace the Insights.
 */
export async function requestInsights(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<JobStatusView> {
  const note = await requireNote(deps, accountId, noteId);
  if (note.state === 'trashed') throw new ConflictError('This note is in the trash: restore it first');
  const transcription = await deps.notes.getJob(accountId, noteId, 'transcription');
  if (transcription?.status !== 'completed') {
    throw new ConflictError('Insights need a completed transcription: transcribe the note first');
  }
  const now = deps.now();
  const fresh = queuedJob(accountId, noteId, 'insights', now);
  const { job, created } = await deps.notes.createJobIfAbsent(fresh);
  if (!created && isInFlight(job)) return jobStatusView(job, note.title);
  if (!created) {
    const restarted: Job = { ...fresh, attempts: job.attempts };
    if (!(await deps.notes.replaceJob(job, restarted))) return requestInsights(deps, accountId, noteId);
    await deps.queue.requestGeneration({ type: 'insights', account_id: accountId, note_id: noteId });
    return jobStatusView(restarted, note.title);
  }
  await deps.queue.requestGeneration({ type: 'insights', account_id: accountId, note_id: noteId });
  return jobStatusView(job, note.title);
}

export type GetInsightsResult =
  | { kind: 'ready'; insights: Insights }
  | { kind: 'pending'; job: JobStatusView };

export async function getInsights(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<GetInsightsResult> {
  const note = await requireNote(deps, accountId, noteId);
  const job = await deps.notes.getJob(accountId, noteId, 'insights');
  if (!job) throw new NotFoundError('This note has no Insights: generate them with generateInsights');
  if (job.status === 'failed') throw new FailedJobError(jobStatusView(job, note.title));
  if (job.status !== 'completed') return { kind: 'pending', job: jobStatusView(job, note.title) };
  const insights = await deps.blobs.getJson<Insights>(objectKeys.insights(accountId, noteId));
  if (!insights) throw new Error('Insights object missing for a completed job');
  return { kind: 'ready', insights };
}

/** Removes a note's Insights (with its transcription: they are derived from it). */
export async function deleteInsights(deps: DomainDeps, accountId: string, noteId: string): Promise<void> {
  const job = await deps.notes.getJob(accountId, noteId, 'insights');
  if (job) await deps.notes.deleteJob(job);
  await deps.blobs.delete(objectKeys.insights(accountId, noteId));
}

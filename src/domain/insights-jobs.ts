import { filedCollections } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, FailedJobError, NotFoundError } from './errors.ts';
import { requireSpeechToGenerateFrom } from './generation-source.ts';
import { isHeld, type Job, type JobKind, type JobStatusView, jobStatusView, queuedJob } from './job.ts';
import { requestJobRun } from './job-requests.ts';
import { deleteJobOfKind } from './job-transitions.ts';
import { insightsLost } from './lost-results.ts';
import type { InsightsView } from './named-results.ts';
import { requireNoteWithItems } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';
import type { Shown } from './result-freshness.ts';
import { shownInsights } from './shown-insights.ts';
import { readInsights } from './stored-results.ts';

/**
 * generateInsights: one Insights job per note. A job a worker is running is returned as it is;
 * otherwise (none yet, completed, failed, or its worker died) a new run starts and will replace the
 * Insights.
 */
export async function requestInsights(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<JobStatusView> {
  const { note, jobs } = await requireNoteWithItems(deps, accountId, noteId);
  if (note.state === 'trashed') throw new ConflictError('This note is in the trash: restore it first');
  const transcription = jobs.get('transcription') ?? null;
  requireSpeechToGenerateFrom(transcription, 'Insights');
  const now = deps.now();
  const fresh = queuedJob(accountId, noteId, 'insights', now);
  const { job, created } = await deps.notes.createJobIfAbsent(fresh);
  if (!created && isHeld(job, now)) return jobStatusView(job, note.title);
  if (!created && job.status !== 'queued') {
    // Completed or failed (a new run), or processing by a worker that died (its lease ran out).
    const restarted: Job = { ...fresh, attempts: job.attempts };
    if (!(await deps.notes.replaceJob(job, restarted))) return requestInsights(deps, accountId, noteId);
    await requestJobRun(deps, restarted);
    return jobStatusView(restarted, note.title);
  }
  // New, or still queued: (re)sent, since a message lost with a stopped runtime would leave it queued
  // for ever; the worker's claim makes a duplicate harmless.
  await requestJobRun(deps, job);
  return jobStatusView(job, note.title);
}

export type GetInsightsResult =
  | { kind: 'ready'; insights: Shown<InsightsView> }
  | { kind: 'pending'; job: JobStatusView };

export async function getInsights(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<GetInsightsResult> {
  const { note, jobs, collectionIds } = await requireNoteWithItems(deps, accountId, noteId);
  const job = jobs.get('insights');
  if (!job) throw new NotFoundError('This note has no Insights: generate them with generateInsights');
  if (job.status === 'failed') throw new FailedJobError(jobStatusView(job, note.title));
  if (job.status !== 'completed') return { kind: 'pending', job: jobStatusView(job, note.title) };
  // The note's collections, for the instructions the Insights are compared with.
  const [insights, filed] = await Promise.all([
    readInsights(deps, accountId, noteId),
    filedCollections(deps, accountId, collectionIds),
  ]);
  if (insights === 'unreadable') {
    throw new FailedJobError(jobStatusView(await insightsLost(deps, job), note.title));
  }
  return {
    kind: 'ready',
    insights: shownInsights(insights, note.speaker_names, jobs.get('transcription') ?? null, filed),
  };
}

/** Removes a note's Insights (with its transcription: they are derived from it). */
export async function deleteInsights(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  /** The note's jobs as just read: one found there is deleted as read; others are looked up here. */
  jobs?: ReadonlyMap<JobKind, Job>,
): Promise<void> {
  // The job first: a run in progress loses its claim and removes what it wrote.
  await deleteJobOfKind(deps, accountId, noteId, 'insights', jobs?.get('insights'));
  await deps.blobs.delete(objectKeys.insights(accountId, noteId));
}

import { type BatchSpeechToText, isBatchEngine } from '../ports/speech-to-text.ts';
import type { DomainDeps } from './deps.ts';
import { isHeld, isRun, type Job, runNumber, TRANSCRIPTION_STAGES } from './job.ts';
import { giveUp, type Resumed, resumeJob } from './job-recovery.ts';
import { releaseJob } from './job-transitions.ts';
import { finishBatchTranscription, type WorkerDeps } from './transcription-worker.ts';

/**
 * One decision for every job found in flight, shared by the local runtime's start-up recovery and the
 * scheduled reconciler on AWS (functions/reconcileJobs.ts):
 *
 * - `dead-run` (a local start): every worker of the previous run is gone, so every job is resumed.
 * - `live` (AWS): workers may be running now. A processing job is resumed only once its lease has run
 *   out; a queued job only when it has waited so long that its message must be lost (the send failed
 *   after the job was written, or the queue dropped it); an upload not yet taken is left to the
 *   uploads queue (its dead-letter consumer fails the job, with an alarm).
 *
 * In both, a transcription recognising as a batch job (Amazon Transcribe) is first asked about: a job
 * that ended is finished exactly as its completion event would have finished it, one still running is
 * left to its event.
 */
export type ReconcileMode = 'dead-run' | 'live';

export type Reconciled = Resumed | 'recognition_finished' | 'recognition_running' | 'left';

/** A batch job that has run this long without its event is asked about (the event usually comes first). */
export const RECOGNITION_CHECK_AFTER_MS = 10 * 60 * 1000;
/**
 * A queued job untouched this long on AWS is sent again: the work queues keep messages 14 days and
 * take minutes, so its message is lost. A duplicate is harmless (the claim drops it), and the job's
 * `updated_at` is renewed, so it is sent at most once a day.
 */
export const QUEUED_RESEND_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * On AWS, a job still processing this long after its work first started (its first claim, kept across
 * runs of one request), and held by no worker, is given up rather than run again: the longest work (a 4-hour recording in Transcribe, a podcast) takes well
 * under an hour, so its runs keep failing. Without it a Transcribe job its service does not know
 * would be started again after each 6-hour lease, up to five times (30 hours, five times the cost).
 * Not locally: a machine switched off for a week resumes its work when it starts.
 */
export const MAX_LIVE_JOB_AGE_MS = 12 * 60 * 60 * 1000;

export async function reconcileJob(
  deps: DomainDeps | WorkerDeps,
  job: Job,
  mode: ReconcileMode,
): Promise<Reconciled> {
  const now = deps.now();
  const engine = 'speech' in deps && isBatchEngine(deps.speech) ? deps.speech : undefined;
  if (
    engine &&
    job.kind === 'transcription' &&
    job.status === 'processing' &&
    // Saving too: a completion that failed after it started saving leaves the job there.
    (job.stage === TRANSCRIPTION_STAGES.recognizing || job.stage === TRANSCRIPTION_STAGES.saving) &&
    (mode === 'dead-run' || now - job.updated_at >= RECOGNITION_CHECK_AFTER_MS)
  ) {
    const asked = await askEngine({ ...(deps as WorkerDeps), speech: engine }, job);
    if (asked) return asked;
  }
  if (mode === 'live') {
    if (job.status === 'processing' && isHeld(job, now)) return 'left';
    if (
      job.status === 'processing' &&
      now - (job.first_claimed_at ?? job.created_at) >= MAX_LIVE_JOB_AGE_MS
    ) {
      const outcome = await giveUp(
        deps,
        job,
        `The work did not finish within ${MAX_LIVE_JOB_AGE_MS / 3_600_000} hours of its start and was given up. Request it again to retry.`,
      );
      // A recognition job's output, if it left one, goes with it.
      if (engine && job.kind === 'transcription') await engine.cleanUp(runOf(job));
      return outcome;
    }
    if (job.status === 'queued') {
      if (job.stage === TRANSCRIPTION_STAGES.awaitingUpload) return 'left';
      if (now - job.updated_at < QUEUED_RESEND_AFTER_MS) return 'left';
      // Renewed first: a failed send is sent again next day, a successful one is not repeated.
      const renewed = await releaseJob(deps, job, job.stage);
      if (!renewed) return 'changed';
      return resumeJob(deps, renewed);
    }
  }
  return resumeJob(deps, job);
}

/**
 * The reconciler's tries at finishing a note from a recognition that ended: each run of the
 * reconciler (every 15 minutes on AWS) makes one, so four span about an hour. A completion that fails
 * every time (an output document that cannot be read, a transcript that cannot be saved) then ends
 * the job failed, rather than leaving the note processing until Transcribe forgets the job (90 days).
 */
export const MAX_FINISH_TRIES = 4;

/** null: the provider does not know the job (never started): it is resumed like any other. */
async function askEngine(
  deps: WorkerDeps & { speech: BatchSpeechToText },
  found: Job,
): Promise<Reconciled | null> {
  const run = runOf(found);
  const status = await deps.speech.status(run);
  if (status.state === 'running') return 'recognition_running';
  if (status.state === 'unknown') return null;
  // Read again, consistently: the in-flight index the reconciler found the job in lags behind.
  const job = await deps.notes.getJob(found.account_id, found.note_id, found.kind);
  if (job?.status !== 'processing' || !isRun(job, run.attempt)) return 'changed';
  const tries = job.finish_tries ?? 0;
  if (tries >= MAX_FINISH_TRIES) {
    const outcome = await giveUp(
      deps,
      job,
      `The transcript could not be saved: finishing it failed ${tries} times over about an hour. Submit the recording again to retry.`,
    );
    await deps.speech.cleanUp(run);
    return outcome;
  }
  // Counted before the try: a try that throws (or never returns) counts too.
  if (!(await deps.notes.replaceJob(job, { ...job, finish_tries: tries + 1 }))) return 'changed';
  const finished = await finishBatchTranscription(deps, {
    job: run,
    succeeded: status.succeeded,
    ...(status.failureReason === undefined ? {} : { failureReason: status.failureReason }),
    permanent: status.permanent,
    ...(status.transient ? { transient: true } : {}),
  });
  // Counted as the reconciler's (reconciled_failed): a failure it settles reaches the same alarm.
  if (finished === 'failed') return 'failed';
  if (finished === 'retried') return 'requeued';
  return 'recognition_finished';
}

function runOf(job: Job) {
  return { accountId: job.account_id, noteId: job.note_id, attempt: runNumber(job) };
}

export type ReconcileCounts = Record<Reconciled, number>;

/**
 * Reconciles each job of `jobs` (the local scan, or the in-flight index on AWS) and counts the
 * outcomes. A job that cannot be reconciled now (a full disk, a throttled call) stays as it is for the
 * next run and is reported through `onError`; the others go on.
 */
export async function reconcileJobs(
  deps: DomainDeps | WorkerDeps,
  jobs: AsyncIterable<Job>,
  mode: ReconcileMode,
  onError: (job: Job, error: unknown) => void,
): Promise<{ counts: ReconcileCounts; errors: number }> {
  const counts: ReconcileCounts = {
    requeued: 0,
    upload_found: 0,
    awaiting_upload: 0,
    failed: 0,
    changed: 0,
    recognition_finished: 0,
    recognition_running: 0,
    left: 0,
  };
  let errors = 0;
  for await (const job of jobs) {
    try {
      counts[await reconcileJob(deps, job, mode)] += 1;
    } catch (error) {
      errors += 1;
      onError(job, error);
    }
  }
  return { counts, errors };
}

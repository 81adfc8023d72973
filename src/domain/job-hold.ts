import type { DomainDeps } from './deps.ts';
import { isSameAttempt, type Job } from './job.ts';
import { leaseMs, releaseJob } from './job-transitions.ts';

/** The work's job was deleted (the note or its results were removed) or another attempt took it. */
export class JobLostError extends Error {
  override readonly name = 'JobLostError';
  constructor() {
    super('The job is no longer held by this attempt');
  }
}

/** The runtime is stopping: the work goes back to the queue. */
export class WorkStoppedError extends Error {
  override readonly name = 'WorkStoppedError';
  constructor() {
    super('The runtime stopped before the work finished; it was returned to the queue');
  }
}

/** How long an aborted work may take to stop before the hold ends regardless. */
const SETTLE_AFTER_ABORT_MS = 10_000;

export interface HoldOptions {
  /** Objects this attempt may write: removed if the job is deleted while it works. */
  outputs: string[];
  /** The stage the job is queued at again if the runtime stops mid-work. */
  requeueStage: string;
}

/**
 * Runs the work of a claimed job while holding it: the lease is renewed every third of its length,
 * so a job whose worker died is told apart from one still worked on. `signal` aborts the work when
 * the job is lost (deleted, or taken over after a stall: `skipped`, and if the job is gone, what the
 * work wrote is removed) or when the runtime stops (the job is queued again and WorkStoppedError
 * thrown, so the message stays on the queue). Work that throws also queues the job again: the queue
 * retries the message.
 */
export async function holdJob<T>(
  deps: DomainDeps,
  held: Job,
  options: HoldOptions,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T | 'skipped'> {
  const lost = new AbortController();
  const stop = deps.stopSignal?.();
  const signal = stop ? AbortSignal.any([lost.signal, stop]) : lost.signal;
  const lease = leaseMs(deps);
  const renew = async () => {
    try {
      if (await deps.notes.renewLease(held, deps.now() + lease)) return;
      // Refused: lost, unless this very attempt has just completed or failed the job itself.
      const job = await deps.notes.getJob(held.account_id, held.note_id, held.kind);
      const finishedHere =
        job && isSameAttempt(job, held) && (job.status === 'completed' || job.status === 'failed');
      if (!finishedHere) lost.abort(new JobLostError());
    } catch {
      // A renewal that failed to reach the store is tried again at the next tick; the lease lasts three.
    }
  };
  const timer = setInterval(() => void renew(), Math.max(10, Math.floor(lease / 3)));
  timer.unref();
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  const running = work(signal);
  for (const settled of [aborted, running]) settled.catch(() => undefined);
  try {
    const result = await Promise.race([running, aborted]);
    if (lost.signal.aborted) await discardIfJobGone(deps, held, options.outputs);
    return lost.signal.aborted ? 'skipped' : result;
  } catch (error) {
    // Aborted: the engines stop promptly (children killed, threads ended); wait for that, bounded,
    // so whatever the work still writes or cleans up is done before the job is handed on.
    if (signal.aborted) await settledWithin(running, SETTLE_AFTER_ABORT_MS);
    if (lost.signal.aborted || error instanceof JobLostError) {
      await discardIfJobGone(deps, held, options.outputs);
      return 'skipped';
    }
    // Stopped with the runtime, or a transient fault the queue retries: either way the job goes back
    // to `queued`, so the message's next delivery can claim it.
    await releaseJob(deps, held, options.requeueStage);
    throw stop?.aborted ? new WorkStoppedError() : error;
  } finally {
    clearInterval(timer);
  }
}

/** Waits for `work` to end, at most `ms` (an engine that ignores its signal cannot hold things up). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((done) => {
      timer = setTimeout(done, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Removes what an attempt wrote once its job is gone. Not when another attempt holds the job: the
 * result keys are fixed, so they may already be that attempt's results.
 */
async function discardIfJobGone(deps: DomainDeps, held: Job, outputs: string[]): Promise<void> {
  if (await deps.notes.getJob(held.account_id, held.note_id, held.kind)) return;
  await Promise.all(outputs.map((key) => deps.blobs.delete(key)));
}

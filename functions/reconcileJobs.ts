import middy from '@middy/core';
import { reconcileJobs } from '#src/domain/job-reconciliation.ts';
import { logger } from '#src/logging.ts';
import { countOutcome, observed } from '#src/observability.ts';
import { getWorkerServices } from '#src/wiring/worker-services.ts';

/**
 * Does on AWS what the local runtime's start-up recovery does, on a schedule (EventBridge): jobs whose
 * worker died (lease run out) are queued again, Transcribe jobs whose completion event was missed are
 * finished from what Transcribe says, queued jobs whose message was lost are sent again
 * (src/domain/job-reconciliation.ts, mode `live`: a job a live worker holds is left alone). A job
 * that could not be reconciled fails the invocation after the others are done, so the error alarm of
 * background functions sees it; the next run tries it again.
 */
export const handler = middy<unknown, void>()
  .use(observed())
  .handler(async () => {
    const services = getWorkerServices();
    const { counts, errors } = await reconcileJobs(
      services,
      services.notes.inFlightJobs(),
      'live',
      (job, error) =>
        logger.error('could not reconcile a job', {
          noteId: job.note_id,
          kind: job.kind,
          error: error instanceof Error ? error.name : 'error',
        }),
    );
    // One data point per job, as the workers count theirs (jobs left to their workers are not counted).
    for (const [outcome, count] of Object.entries(counts)) {
      if (outcome === 'left') continue;
      for (let i = 0; i < count; i += 1) await countOutcome('reconciled', outcome);
    }
    logger.info('reconciled jobs in flight', { ...counts, errors });
    if (errors > 0) throw new Error(`${errors} job(s) could not be reconciled; the next run tries again`);
  });

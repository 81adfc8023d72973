import type { DomainDeps } from '../domain/deps.ts';
import type { JobKind } from '../domain/job.ts';
import { failJob } from '../domain/job-transitions.ts';
import { logger } from '../logging.ts';
import { countOutcome } from '../observability.ts';
import { getServices } from '../wiring/services.ts';
import { type SqsWorkerHandler, sqsWorker } from './sqs-worker.ts';

export interface DeadJob {
  accountId: string;
  noteId: string;
  kind: JobKind;
}

/** Ends one dead-lettered job as failed with `detail`, if it is still the job's due. */
export type EndDeadJob = (deps: DomainDeps, job: DeadJob, detail: string) => Promise<'failed' | 'skipped'>;

/** By default: unless it is over already or a live worker holds it (a newer run is left to finish). */
const failUnlessHeld: EndDeadJob = (deps, { accountId, noteId, kind }, detail) =>
  failJob(deps, accountId, noteId, kind, detail);

/**
 * The consumer of a dead-letter queue: a message that exhausted its receives (a worker that crashed
 * every time, a provider that kept failing) ends its job as `failed` with a detail, so no job waits
 * forever. A message that is not ours is logged (by ID) and dropped.
 */
export function deadLetterWorker(
  name: string,
  parse: (body: string) => DeadJob[],
  detail: (kind: JobKind) => string,
  end: EndDeadJob = failUnlessHeld,
): SqsWorkerHandler {
  return sqsWorker(name, getServices, async (record, services) => {
    let jobs: DeadJob[];
    try {
      jobs = parse(record.body);
    } catch {
      logger.error('dropping an unreadable dead-letter message', { messageId: record.messageId });
      return;
    }
    for (const job of jobs) {
      const outcome = await end(services, job, detail(job.kind));
      await countOutcome(`${job.kind}_dead_letter`, outcome);
      logger.error(`${job.kind} dead-lettered`, { worker: name, noteId: job.noteId, outcome });
    }
  });
}

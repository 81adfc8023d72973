import type { JobKind } from '../domain/job.ts';
import { failJob } from '../domain/job-transitions.ts';
import { logger } from '../logging.ts';
import { countOutcome } from '../observability.ts';
import { getServices } from '../services.ts';
import { type SqsWorkerHandler, sqsWorker } from './sqs-worker.ts';

export interface DeadJob {
  accountId: string;
  noteId: string;
  kind: JobKind;
}

/**
 * The consumer of a dead-letter queue: a message that exhausted its receives (a worker that crashed
 * every time, a provider that kept failing) ends its job as `failed` with a detail, so no job waits
 * forever. A message that is not ours is logged (by ID) and dropped.
 */
export function deadLetterWorker(
  name: string,
  parse: (body: string) => DeadJob[],
  detail: (kind: JobKind) => string,
): SqsWorkerHandler {
  return sqsWorker(name, getServices, async (record, services) => {
    let jobs: DeadJob[];
    try {
      jobs = parse(record.body);
    } catch {
      logger.error('dropping an unreadable dead-letter message', { messageId: record.messageId });
      return;
    }
    for (const { accountId, noteId, kind } of jobs) {
      const outcome = await failJob(services, accountId, noteId, kind, detail(kind));
      countOutcome(`${kind}_dead_letter`, outcome);
      logger.error(`${kind} dead-lettered`, { noteId, outcome });
    }
  });
}

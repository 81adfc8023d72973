import { failJob } from '#src/domain/job-transitions.ts';
import { logger } from '#src/logging.ts';
import { countOutcome } from '#src/observability.ts';
import { getServices } from '#src/services.ts';
import { parseGenerationMessage } from '#src/workers/generation-messages.ts';
import { sqsWorker } from '#src/workers/sqs-worker.ts';

/**
 * Consumes the generation dead-letter queue: a request that exhausted its receives (a provider that
 * stayed throttled, a worker that crashed every time) ends its job as `failed` with a detail.
 */
export const handler = sqsWorker('generationDeadLetter', getServices, async (record, services) => {
  let request: ReturnType<typeof parseGenerationMessage>;
  try {
    request = parseGenerationMessage(record.body);
  } catch {
    logger.error('dropping an unreadable dead-letter message', { messageId: record.messageId });
    return;
  }
  const outcome = await failJob(
    services,
    request.accountId,
    request.noteId,
    'insights',
    'Insights generation did not complete after repeated attempts (the text engine may be rate-limited). Generate the Insights again to retry.',
  );
  countOutcome('insights_dead_letter', outcome);
  logger.error('insights dead-lettered', { noteId: request.noteId, outcome });
});

import { runInsights } from '#src/domain/insights-worker.ts';
import { getGenerationServices } from '#src/generation-services.ts';
import { logger } from '#src/logging.ts';
import { countOutcome } from '#src/observability.ts';
import { parseGenerationMessage } from '#src/workers/generation-messages.ts';
import { sqsWorker } from '#src/workers/sqs-worker.ts';

/** Generates Insights (artifacts later) for transcribed notes: triggered by the generation queue. */
export const handler = sqsWorker('generationWorker', getGenerationServices, async (record, services) => {
  const request = parseGenerationMessage(record.body);
  const started = Date.now();
  const outcome = await runInsights(services, request);
  countOutcome('insights', outcome);
  logger.info('insights', { noteId: request.noteId, outcome, ms: Date.now() - started });
});

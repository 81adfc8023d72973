import { runArtifact } from '#src/domain/artifact-worker.ts';
import { runInsights } from '#src/domain/insights-worker.ts';
import { logger } from '#src/logging.ts';
import { countOutcome } from '#src/observability.ts';
import { getGenerationServices } from '#src/wiring/generation-services.ts';
import { jobKindOf, parseGenerationMessage } from '#src/workers/generation-messages.ts';
import { sqsWorker } from '#src/workers/sqs-worker.ts';

/** Generates Insights and artifacts for transcribed notes: triggered by the generation queue. */
export const handler = sqsWorker('generationWorker', getGenerationServices, async (record, services) => {
  const task = parseGenerationMessage(record.body);
  const started = Date.now();
  const outcome =
    task.type === 'insights' ? await runInsights(services, task) : await runArtifact(services, task);
  const kind = jobKindOf(task);
  await countOutcome(kind, outcome);
  logger.info(kind, { noteId: task.noteId, outcome, ms: Date.now() - started });
});

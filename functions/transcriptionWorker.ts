import { runTranscription } from '#src/domain/transcription-worker.ts';
import { logger } from '#src/logging.ts';
import { countOutcome } from '#src/observability.ts';
import { getWorkerServices } from '#src/wiring/worker-services.ts';
import { sqsWorker } from '#src/workers/sqs-worker.ts';
import { parseTranscriptionMessage } from '#src/workers/transcription-messages.ts';

/** Transcribes uploaded recordings: triggered by the transcription queue (S3 upload events, resubmissions). */
export const handler = sqsWorker('transcriptionWorker', getWorkerServices, async (record, services) => {
  for (const trigger of parseTranscriptionMessage(record.body)) {
    const started = Date.now();
    const outcome = await runTranscription(services, trigger);
    await countOutcome('transcription', outcome);
    logger.info('transcription', {
      noteId: trigger.noteId,
      outcome,
      receiveCount: record.attributes.ApproximateReceiveCount,
      ms: Date.now() - started,
    });
  }
});

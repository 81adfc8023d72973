import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runTranscription } from '#src/domain/transcription-worker.ts';
import { logger } from '#src/logging.ts';
import { getServices } from '#src/services.ts';
import { parseTranscriptionMessage } from '#src/workers/transcription-messages.ts';

/**
 * SQS-triggered transcription worker. Reports partial batch failures: a failed record is retried by
 * the queue and, after the bounded receives, moved to the dead-letter queue (transcriptionDeadLetter).
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const services = getServices();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      for (const trigger of parseTranscriptionMessage(record.body)) {
        const started = Date.now();
        const outcome = await runTranscription(services, trigger);
        logger.info('transcription', {
          noteId: trigger.noteId,
          outcome,
          receiveCount: record.attributes.ApproximateReceiveCount,
          ms: Date.now() - started,
        });
      }
    } catch (error) {
      logger.warn('transcription attempt failed; the queue will retry', {
        messageId: record.messageId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { fail } from '#src/domain/transcription-worker.ts';
import { logger } from '#src/logging.ts';
import { getServices } from '#src/services.ts';
import { parseTranscriptionMessage } from '#src/workers/transcription-messages.ts';

/**
 * Consumes the transcription dead-letter queue: a message that exhausted its receives (a worker that
 * crashed every time, a provider that kept failing) ends its job as `failed` with a detail, so no job
 * waits forever. Messages that are not ours are logged and dropped.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const services = getServices();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let triggers: ReturnType<typeof parseTranscriptionMessage>;
    try {
      triggers = parseTranscriptionMessage(record.body);
    } catch {
      logger.error('dropping an unreadable dead-letter message', { messageId: record.messageId });
      continue;
    }
    try {
      for (const { accountId, noteId } of triggers) {
        const outcome = await fail(
          services,
          accountId,
          noteId,
          'Transcription did not complete after repeated attempts. Submit the note again to retry.',
        );
        logger.error('transcription dead-lettered', { noteId, outcome });
      }
    } catch (error) {
      logger.warn('dead-letter handling failed; will retry', {
        messageId: record.messageId,
        error: error instanceof Error ? error.message : String(error),
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

import { fail } from '#src/domain/transcription-worker.ts';
import { logger } from '#src/logging.ts';
import { countOutcome } from '#src/observability.ts';
import { getServices } from '#src/services.ts';
import { sqsWorker } from '#src/workers/sqs-worker.ts';
import { parseTranscriptionMessage } from '#src/workers/transcription-messages.ts';

/**
 * Consumes the transcription dead-letter queue: a message that exhausted its receives (a worker that
 * crashed every time, a provider that kept failing) ends its job as `failed` with a detail, so no job
 * waits forever. A message that is not ours is logged and dropped.
 */
export const handler = sqsWorker('transcriptionDeadLetter', getServices, async (record, services) => {
  let triggers: ReturnType<typeof parseTranscriptionMessage>;
  try {
    triggers = parseTranscriptionMessage(record.body);
  } catch {
    logger.error('dropping an unreadable dead-letter message', { messageId: record.messageId });
    return;
  }
  for (const { accountId, noteId } of triggers) {
    const outcome = await fail(
      services,
      accountId,
      noteId,
      'Transcription did not complete after repeated attempts. Submit the note again to retry.',
    );
    countOutcome('transcription_dead_letter', outcome);
    logger.error('transcription dead-lettered', { noteId, outcome });
  }
});

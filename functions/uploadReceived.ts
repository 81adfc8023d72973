import { recordArrivedUpload } from '#src/domain/arrived-uploads.ts';
import { logger } from '#src/logging.ts';
import { countOutcome } from '#src/observability.ts';
import { getServices } from '#src/wiring/services.ts';
import { sqsWorker } from '#src/workers/sqs-worker.ts';
import { parseUploadEvent } from '#src/workers/upload-events.ts';

/**
 * Takes each completed recording upload (the S3 event on the uploads queue): the note records it, the
 * job becomes `queued` and its transcription is requested. A few table writes, so a recording's job
 * says it is queued within moments of its upload, however busy the recognisers are.
 */
export const handler = sqsWorker('uploadReceived', getServices, async (record, services) => {
  for (const { accountId, noteId } of parseUploadEvent(record.body)) {
    const outcome = await recordArrivedUpload(services, accountId, noteId);
    await countOutcome('upload', outcome);
    logger.info('upload received', {
      noteId,
      outcome,
      receiveCount: record.attributes.ApproximateReceiveCount,
    });
  }
});

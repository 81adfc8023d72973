import * as z from 'zod';
import type { TranscriptionTrigger } from '../domain/transcription-worker.ts';

/** A transcription request (src/ports/work-queue.ts): sent once an upload arrived, or by a resubmission. */
const transcribeRequest = z.object({
  type: z.literal('transcribe'),
  account_id: z.uuid(),
  note_id: z.uuid(),
});

/**
 * Reads the work out of one message of the transcription queue. Throws for a message that is not a
 * request: it can never succeed, and the queue moves it to the dead-letter queue after the bounded
 * receives.
 *
 * S3 upload events go to the uploads queue (src/workers/upload-events.ts) and are no longer read here,
 * not even for one release: no deployment on AWS predates the uploads queue, and the local queues
 * live in memory, so no upload event can be waiting on a transcription queue at an upgrade (an
 * upload whose event was lost is found by start-up recovery, src/domain/job-recovery.ts).
 */
export function parseTranscriptionMessage(body: string): TranscriptionTrigger[] {
  const request = transcribeRequest.parse(JSON.parse(body));
  return [{ accountId: request.account_id, noteId: request.note_id }];
}

import * as z from 'zod';
import { parseAudioKey } from '../domain/object-keys.ts';
import type { TranscriptionTrigger } from '../domain/transcription-worker.ts';

/** A re-transcription request sent by submitTranscription (src/ports/work-queue.ts). */
const transcribeRequest = z.object({
  type: z.literal('transcribe'),
  account_id: z.uuid(),
  note_id: z.uuid(),
});

/** The S3 event notification S3 delivers to SQS when an upload completes (only the fields we read). */
const s3Notification = z.object({
  Records: z.array(
    z.object({
      eventName: z.string(),
      s3: z.object({
        object: z.object({ key: z.string(), size: z.number().int().nonnegative().optional() }),
      }),
    }),
  ),
});

/** S3 sends this once when a notification is configured; it carries no work. */
const s3TestEvent = z.object({ Event: z.literal('s3:TestEvent') });

/**
 * Reads the work out of one queue message. Throws for a message that is not one of ours: it can never
 * succeed, and the queue moves it to the dead-letter queue after the bounded receives.
 */
export function parseTranscriptionMessage(body: string): TranscriptionTrigger[] {
  const json: unknown = JSON.parse(body);
  const request = transcribeRequest.safeParse(json);
  if (request.success) return [{ accountId: request.data.account_id, noteId: request.data.note_id }];
  if (s3TestEvent.safeParse(json).success) return [];
  const notification = s3Notification.parse(json);
  return notification.Records.flatMap((record) => {
    if (!record.eventName.startsWith('ObjectCreated:')) return [];
    // S3 URL-encodes keys in notifications, with '+' for spaces.
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    const ids = parseAudioKey(key);
    return ids ? [{ ...ids, upload: { sizeBytes: record.s3.object.size ?? 0 } }] : [];
  });
}

import * as z from 'zod';
import { parseAudioKey } from '../domain/object-keys.ts';

/** A recording that reached storage, named by its object key. */
export interface UploadedRecording {
  accountId: string;
  noteId: string;
}

/** The S3 event notification S3 delivers to SQS when an upload completes (only the fields we read). */
const s3Notification = z.object({
  Records: z.array(
    z.object({
      eventName: z.string(),
      s3: z.object({ object: z.object({ key: z.string() }) }),
    }),
  ),
});

/** S3 sends this once when a notification is configured; it carries no work. */
const s3TestEvent = z.object({ Event: z.literal('s3:TestEvent') });

/**
 * Reads the uploaded recordings out of one message of the uploads queue. The size is not read: the
 * worker asks storage, which also tells a late event of an object deleted since. Throws for a
 * message that is not an S3 event: it can never succeed, and the queue moves it to the dead-letter
 * queue after the bounded receives.
 */
export function parseUploadEvent(body: string): UploadedRecording[] {
  const json: unknown = JSON.parse(body);
  if (s3TestEvent.safeParse(json).success) return [];
  return s3Notification.parse(json).Records.flatMap((record) => {
    if (!record.eventName.startsWith('ObjectCreated:')) return [];
    // S3 URL-encodes keys in notifications, with '+' for spaces.
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    const ids = parseAudioKey(key);
    return ids ? [ids] : [];
  });
}

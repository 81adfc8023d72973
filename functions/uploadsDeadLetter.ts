import { failUntakenUpload } from '#src/domain/arrived-uploads.ts';
import { deadLetterWorker } from '#src/workers/dead-letter-worker.ts';
import { parseUploadEvent } from '#src/workers/upload-events.ts';

/** Ends the jobs of uploads that could not be taken after repeated attempts as `failed`. */
export const handler = deadLetterWorker(
  'uploadsDeadLetter',
  (body) => parseUploadEvent(body).map((upload) => ({ ...upload, kind: 'transcription' as const })),
  () =>
    'The recording was uploaded, but it could not be queued for transcription after repeated attempts. Submit the note again to retry.',
  (deps, { accountId, noteId }, detail) => failUntakenUpload(deps, accountId, noteId, detail),
);

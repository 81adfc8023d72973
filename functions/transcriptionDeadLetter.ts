import { deadLetterWorker } from '#src/workers/dead-letter-worker.ts';
import { parseTranscriptionMessage } from '#src/workers/transcription-messages.ts';

/** Ends transcription jobs whose messages exhausted their receives as `failed`. */
export const handler = deadLetterWorker(
  'transcriptionDeadLetter',
  (body) =>
    parseTranscriptionMessage(body).map((trigger) => ({ ...trigger, kind: 'transcription' as const })),
  () => 'Transcription did not complete after repeated attempts. Submit the note again to retry.',
);

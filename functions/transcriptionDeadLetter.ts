import { deadLetterWorker } from '#src/workers/dead-letter-worker.ts';
import { parseTranscriptionMessage } from '#src/workers/transcription-messages.ts';

/** Ends transcription jobs whose messages exhausted their receives as `failed`. */
export const handler = deadLetterWorker(
  'transcriptionDeadLetter',
  'transcription',
  parseTranscriptionMessage,
  'Transcription did not complete after repeated attempts. Submit the note again to retry.',
);

import { deadLetterWorker } from '#src/workers/dead-letter-worker.ts';
import { parseGenerationMessage } from '#src/workers/generation-messages.ts';

/** Ends Insights jobs whose messages exhausted their receives (e.g. a provider that stayed throttled) as `failed`. */
export const handler = deadLetterWorker(
  'generationDeadLetter',
  'insights',
  (body) => [parseGenerationMessage(body)],
  'Insights generation did not complete after repeated attempts (the text engine may be rate-limited). Generate the Insights again to retry.',
);

import { deadLetterWorker } from '#src/workers/dead-letter-worker.ts';
import { jobKindOf, parseGenerationMessage } from '#src/workers/generation-messages.ts';

/**
 * Ends Insights and artifact jobs whose messages exhausted their receives (e.g. a provider that stayed
 * throttled) as `failed`.
 */
export const handler = deadLetterWorker(
  'generationDeadLetter',
  (body) => {
    const task = parseGenerationMessage(body);
    return [{ accountId: task.accountId, noteId: task.noteId, kind: jobKindOf(task) }];
  },
  (kind) =>
    kind === 'insights'
      ? 'Insights generation did not complete after repeated attempts (the text engine may be rate-limited). Generate the Insights again to retry.'
      : 'The artifact was not generated after repeated attempts (the engine may be rate-limited). Request it again to retry.',
);

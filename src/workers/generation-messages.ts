import * as z from 'zod';

const insightsRequest = z.object({ type: z.literal('insights'), account_id: z.uuid(), note_id: z.uuid() });

/** Reads one generation queue message; throws for anything else (it ends in the dead-letter queue). */
export function parseGenerationMessage(body: string): {
  accountId: string;
  noteId: string;
  type: 'insights';
} {
  const request = insightsRequest.parse(JSON.parse(body));
  return { type: request.type, accountId: request.account_id, noteId: request.note_id };
}

import * as z from 'zod';
import { ARTIFACT_KINDS, type ArtifactKind } from '../domain/artifact-kinds.ts';
import type { JobKind } from '../domain/job.ts';

const generationRequest = z.discriminatedUnion('type', [
  z.object({ type: z.literal('insights'), account_id: z.uuid(), note_id: z.uuid() }),
  z.object({
    type: z.literal('artifact'),
    account_id: z.uuid(),
    note_id: z.uuid(),
    kind: z.enum(ARTIFACT_KINDS),
    language: z.string().min(2).max(35),
  }),
]);

export type GenerationTask =
  | { type: 'insights'; accountId: string; noteId: string }
  | { type: 'artifact'; accountId: string; noteId: string; kind: ArtifactKind; language: string };

/** Reads one generation queue message; throws for anything else (it ends in the dead-letter queue). */
export function parseGenerationMessage(body: string): GenerationTask {
  const request = generationRequest.parse(JSON.parse(body));
  const ids = { accountId: request.account_id, noteId: request.note_id };
  return request.type === 'insights'
    ? { type: 'insights', ...ids }
    : { type: 'artifact', ...ids, kind: request.kind, language: request.language };
}

/** The job a generation task works on. */
export function jobKindOf(task: GenerationTask): JobKind {
  return task.type === 'insights' ? 'insights' : `artifact:${task.kind}`;
}

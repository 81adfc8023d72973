import type { MadeWithInstructions } from './collection-instructions.ts';
import type { MadeFromTranscript } from './transcript-freshness.ts';
import * as z from './zod-mini.ts';

/**
 * Insights, schema version 1 (openapi.yaml `Insights`). The zod schemas validate what a text engine
 * returns (an LLM's structured output is checked, never trusted) and give LLM adapters the JSON
 * schema to ask for. On zod/mini (./zod-mini.ts): the API functions that read stored Insights load
 * them at cold start.
 */

/** `start_ms` of the conversation segments an item comes from. */
const nonNegativeInteger = () => z.number().check(z.int(), z.nonnegative());
const nonEmpty = () => z.string().check(z.minLength(1));
const citations = z.array(nonNegativeInteger()).check(z.minLength(1));
const citedText = z.object({ text: nonEmpty(), citations });

/** What an engine produces; the service adds note_id, schema_version, engine and generated_at. */
export const insightsContent = z.object({
  summary: citedText,
  key_points: z.array(citedText),
  topics: z.array(z.object({ label: nonEmpty(), citations })),
  action_items: z.array(
    z.object({
      text: nonEmpty(),
      owner: z.nullable(nonEmpty()),
      due_date: z.nullable(z.iso.date()),
      citations,
    }),
  ),
  decisions: z.array(citedText),
  open_questions: z.array(citedText),
  chapters: z.array(
    z.object({
      title: nonEmpty(),
      start_ms: nonNegativeInteger(),
      end_ms: nonNegativeInteger(),
    }),
  ),
  speakers: z.array(
    z.object({
      speaker: nonEmpty(),
      talk_time_ms: nonNegativeInteger(),
      share: z.number().check(z.gte(0), z.lte(1)),
    }),
  ),
});

export type InsightsContent = z.infer<typeof insightsContent>;

/**
 * Records the transcript it was generated from (src/domain/transcript-freshness.ts) and the
 * collections' instructions it was given (src/domain/collection-instructions.ts).
 */
export interface Insights extends InsightsContent, MadeFromTranscript, MadeWithInstructions {
  note_id: string;
  schema_version: 1;
  /** e.g. `local-extractive`, `bedrock:<model>`, `openai-compatible:<model>`. */
  engine: string;
  generated_at: number;
}

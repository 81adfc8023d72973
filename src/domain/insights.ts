import * as z from 'zod';
import type { MadeFromTranscript } from './transcript-freshness.ts';

/**
 * Insights, schema version 1 (openapi.yaml `Insights`). The zod schemas validate what a text engine
 * returns (an LLM's structured output is checked, never trusted) and give LLM adapters the JSON
 * schema to ask for.
 */

/** `start_ms` of the conversation segments an item comes from. */
const citations = z.array(z.number().int().nonnegative()).min(1);
const citedText = z.object({ text: z.string().min(1), citations });

/** What an engine produces; the service adds note_id, schema_version, engine and generated_at. */
export const insightsContent = z.object({
  summary: citedText,
  key_points: z.array(citedText),
  topics: z.array(z.object({ label: z.string().min(1), citations })),
  action_items: z.array(
    z.object({
      text: z.string().min(1),
      owner: z.string().min(1).nullable(),
      due_date: z.iso.date().nullable(),
      citations,
    }),
  ),
  decisions: z.array(citedText),
  open_questions: z.array(citedText),
  chapters: z.array(
    z.object({
      title: z.string().min(1),
      start_ms: z.number().int().nonnegative(),
      end_ms: z.number().int().nonnegative(),
    }),
  ),
  speakers: z.array(
    z.object({
      speaker: z.string().min(1),
      talk_time_ms: z.number().int().nonnegative(),
      share: z.number().min(0).max(1),
    }),
  ),
});

export type InsightsContent = z.infer<typeof insightsContent>;

/** Records the transcript it was generated from (src/domain/transcript-freshness.ts). */
export interface Insights extends InsightsContent, MadeFromTranscript {
  note_id: string;
  schema_version: 1;
  /** e.g. `local-extractive`, `bedrock:<model>`, `openai-compatible:<model>`. */
  engine: string;
  generated_at: number;
}

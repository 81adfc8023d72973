import { artifactDraftSchemas } from '../../domain/artifacts.ts';
import { insightsContent } from '../../domain/insights.ts';
import * as z from '../../domain/zod-mini.ts';
import { answerDraftSchema } from './answer-validate.ts';
import type { JsonSchema } from './structured-task.ts';

/**
 * The JSON schemas the providers are asked to fill, derived from the zod schemas that validate the
 * answers. `z.toJSONSchema` emits a draft-2020-12 object schema without `$ref`/`$defs`; two adjustments:
 * - `$schema` is dropped: Bedrock's `inputSchema.json` and OpenAI's `json_schema.schema` want the schema
 *   object itself, and some grammar converters (llama.cpp) reject unknown top-level keywords.
 * - zod's leap-year-exact `pattern` for ISO dates uses constructs that grammar-constrained decoders
 *   (llama.cpp, xgrammar) handle poorly or not at all; a plain `YYYY-MM-DD` pattern is kept instead and
 *   zod still checks the calendar on return.
 */
export function providerJsonSchema(schema: z.core.$ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as JsonSchema;
  return rewrite(rest) as JsonSchema;
}

export const insightsJsonSchema: JsonSchema = providerJsonSchema(insightsContent);

export const artifactJsonSchemas = {
  epiphany: providerJsonSchema(artifactDraftSchemas.epiphany),
  deep_research: providerJsonSchema(artifactDraftSchemas.deep_research),
  podcast: providerJsonSchema(artifactDraftSchemas.podcast),
} as const;

export const answerJsonSchema: JsonSchema = providerJsonSchema(answerDraftSchema);

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = rewrite(value);
  if (out.format === 'date' && typeof out.pattern === 'string') out.pattern = '^\\d{4}-\\d{2}-\\d{2}$';
  return out;
}

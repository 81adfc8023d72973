import * as z from 'zod';
import { insightsContent } from '../../domain/insights.ts';

type JsonSchema = Record<string, unknown>;

/**
 * The JSON schema the providers are asked to fill, derived from the zod schema that validates the
 * answer. `z.toJSONSchema` emits a draft-2020-12 object schema without `$ref`/`$defs`; two adjustments:
 * - `$schema` is dropped: Bedrock's `inputSchema.json` and OpenAI's `json_schema.schema` want the schema
 *   object itself, and some grammar converters (llama.cpp) reject unknown top-level keywords.
 * - zod's leap-year-exact `pattern` for ISO dates uses constructs that grammar-constrained decoders
 *   (llama.cpp, xgrammar) handle poorly or not at all; a plain `YYYY-MM-DD` pattern is kept instead and
 *   zod still checks the calendar on return.
 */
export const insightsJsonSchema: JsonSchema = simplify(z.toJSONSchema(insightsContent) as JsonSchema);

function simplify(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rewrite(rest) as JsonSchema;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = rewrite(value);
  if (out.format === 'date' && typeof out.pattern === 'string') out.pattern = '^\\d{4}-\\d{2}-\\d{2}$';
  return out;
}

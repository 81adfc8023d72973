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

/** Every schema a provider is asked to fill, derived from zod: what lib/bundling.ts builds in. */
export function derivedJsonSchemas() {
  return {
    insights: providerJsonSchema(insightsContent),
    answer: providerJsonSchema(answerDraftSchema),
    epiphany: providerJsonSchema(artifactDraftSchemas.epiphany),
    deep_research: providerJsonSchema(artifactDraftSchemas.deep_research),
    podcast: providerJsonSchema(artifactDraftSchemas.podcast),
  } satisfies Record<string, JsonSchema>;
}

/**
 * In a Lambda bundle these are `derivedJsonSchemas()` as lib/bundling.ts computed them at build time
 * (`NOTES_BUNDLE_JSON_SCHEMAS_BUILT` is then true), so the bundle carries each schema a handler uses
 * and not zod's `toJSONSchema`; esbuild drops the branch that derives them, and (`@__PURE__`) the
 * schemas the handler does not use. JSON text, parsed when the module loads: an object-valued define
 * made every bundle ~10 KB larger, used or not (esbuild 0.28). Undefined in unbundled code (tests,
 * `npm start`), which derives them here when the module loads.
 */
declare const NOTES_BUNDLE_JSON_SCHEMAS_BUILT: boolean | undefined;
declare const NOTES_BUNDLE_JSON_SCHEMA_INSIGHTS: string;
declare const NOTES_BUNDLE_JSON_SCHEMA_ANSWER: string;
declare const NOTES_BUNDLE_JSON_SCHEMA_EPIPHANY: string;
declare const NOTES_BUNDLE_JSON_SCHEMA_DEEP_RESEARCH: string;
declare const NOTES_BUNDLE_JSON_SCHEMA_PODCAST: string;

export const insightsJsonSchema: JsonSchema =
  typeof NOTES_BUNDLE_JSON_SCHEMAS_BUILT === 'undefined'
    ? providerJsonSchema(insightsContent)
    : /* @__PURE__ */ (JSON.parse(NOTES_BUNDLE_JSON_SCHEMA_INSIGHTS) as JsonSchema);

export const artifactJsonSchemas = {
  epiphany:
    typeof NOTES_BUNDLE_JSON_SCHEMAS_BUILT === 'undefined'
      ? providerJsonSchema(artifactDraftSchemas.epiphany)
      : /* @__PURE__ */ (JSON.parse(NOTES_BUNDLE_JSON_SCHEMA_EPIPHANY) as JsonSchema),
  deep_research:
    typeof NOTES_BUNDLE_JSON_SCHEMAS_BUILT === 'undefined'
      ? providerJsonSchema(artifactDraftSchemas.deep_research)
      : /* @__PURE__ */ (JSON.parse(NOTES_BUNDLE_JSON_SCHEMA_DEEP_RESEARCH) as JsonSchema),
  podcast:
    typeof NOTES_BUNDLE_JSON_SCHEMAS_BUILT === 'undefined'
      ? providerJsonSchema(artifactDraftSchemas.podcast)
      : /* @__PURE__ */ (JSON.parse(NOTES_BUNDLE_JSON_SCHEMA_PODCAST) as JsonSchema),
} as const;

export const answerJsonSchema: JsonSchema =
  typeof NOTES_BUNDLE_JSON_SCHEMAS_BUILT === 'undefined'
    ? providerJsonSchema(answerDraftSchema)
    : /* @__PURE__ */ (JSON.parse(NOTES_BUNDLE_JSON_SCHEMA_ANSWER) as JsonSchema);

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = rewrite(value);
  if (out.format === 'date' && typeof out.pattern === 'string') out.pattern = '^\\d{4}-\\d{2}-\\d{2}$';
  return out;
}

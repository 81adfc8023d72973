import { fromJsonSchema, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ContractResult } from './contract-results.ts';
import bundled from './output-schemas.json' with { type: 'json' };

/**
 * The tools' output schemas. A tool's structuredContent is the JSON body of its REST operation, so
 * its outputSchema is that body's schema in openapi.yaml (bundled by `npm run docs:build`); results
 * that only MCP gives (the account and token, a deletion, a transcript as text) are zod here.
 * Results that can be one of several shapes (the result or its job status) are an object that is
 * any of them. A result that can be changed conditionally (a note, a transcript) carries its `etag`
 * beside the body's fields (EditableResult). The SDK checks every successful result against its
 * tool's schema before sending it.
 *
 * A tool error (`isError: true`) carries the REST status and error body as structuredContent too
 * (src/mcp/results.ts), and clients validate whatever structuredContent comes (the SDK 1.x client
 * does, errors included): every schema therefore admits that error shape as well.
 */
type JsonSchema = Record<string, unknown>;

const contract = bundled as unknown as Record<ContractResult, JsonSchema>;

/** The account and token getCurrentAccount reports. */
export const accountResult = z.object({
  account_id: z.string(),
  name: z.string(),
  created_at: z.number().int(),
  access_token: z.object({ client_id: z.string(), scopes: z.array(z.string()) }),
});

/** What deleteNote, deleteTranscription and deleteCollection report. */
export const deletionResult = z.union([
  z.object({ note_id: z.uuid(), deleted: z.enum(['note', 'transcription']) }),
  z.object({ collection_id: z.uuid(), deleted: z.literal('collection') }),
]);

/** getTranscription with format srt, vtt or md: the transcript as text, and its etag. */
export const transcriptTextResult = z.object({
  note_id: z.uuid(),
  format: z.enum(['srt', 'vtt', 'md']),
  text: z.string(),
  etag: z.string(),
});

/** A tool error's structuredContent: the REST status and the body REST answers with. */
export const toolError = z
  .looseObject({
    status_code: z.number().int().min(400).max(599),
    detail: z.string(),
  })
  .describe('A tool error (isError true): the HTTP status REST answers with, and its error body.');

/**
 * A REST body that can be changed conditionally, and its entity tag as `etag`: what REST sends as
 * the `ETag` header, beside the body here, so that a client reading only structuredContent can pass
 * it as `if_match`. The same field in every such result (getTranscription's text formats have it too).
 */
export interface EditableResult {
  editable: ContractResult;
  /** Says what the tag is of, and which tools take it as if_match. */
  etag: string;
}

export const editableNote: EditableResult = {
  editable: 'Note',
  etag: "The note's entity tag (REST: the ETag header of getNote and updateNote). Pass it as if_match to updateNote: 412 when the note changed since.",
};

export const editableTranscript: EditableResult = {
  editable: 'Transcription',
  etag: "The transcript's entity tag (REST: the ETag header of getTranscription with format json). Pass it as if_match to editTranscription or undoTranscriptionEdit: 412 when the transcript changed since.",
};

/** One shape or another (or a tool error): `anyOf` under an object root (a non-object root would change the wire format). */
export function outputOf(
  ...shapes: Array<ContractResult | EditableResult | z.ZodType>
): StandardSchemaWithJSON {
  const schemas = [...shapes, toolError].map(schemaOf);
  const defs: JsonSchema = {};
  const bodies = schemas.map(({ $defs, $schema: _, ...body }) => {
    Object.assign(defs, $defs);
    return body;
  });
  const root = { anyOf: bodies };
  return lazily({ ...root, type: 'object', ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) });
}

function schemaOf(shape: ContractResult | EditableResult | z.ZodType): JsonSchema {
  if (typeof shape === 'string') return contract[shape];
  if (shape instanceof z.ZodType) return z.toJSONSchema(shape, { target: 'draft-2020-12' }) as JsonSchema;
  const { $defs, ...body } = contract[shape.editable];
  const etag = {
    type: 'object',
    required: ['etag'],
    properties: { etag: { type: 'string', minLength: 1, description: shape.etag } },
  };
  return { allOf: [body, etag], ...($defs === undefined ? {} : { $defs }) };
}

/**
 * The SDK's JSON Schema wrapper compiles its validator when made; a tool's is compiled on its first
 * call instead, so a cold start does not compile the schemas of tools it never runs.
 */
function lazily(schema: JsonSchema): StandardSchemaWithJSON {
  let compiled: StandardSchemaWithJSON | undefined;
  return {
    '~standard': {
      version: 1,
      vendor: 'notes',
      jsonSchema: { input: () => schema, output: () => schema },
      validate: (value) => {
        compiled ??= fromJsonSchema(schema);
        return compiled['~standard'].validate(value);
      },
    },
  } as StandardSchemaWithJSON;
}

/**
 * The openapi.yaml components (`#/components/schemas/NAME`) that describe what the MCP tools return:
 * a tool's structuredContent is the JSON body its REST operation answers with, so its outputSchema
 * is that body's schema. `npm run docs:build` bundles each, with the components it refers to, into
 * src/mcp/output-schemas.json (scripts/mcp-output-schemas.ts).
 */
export const CONTRACT_RESULTS = [
  'Artifact',
  'AskResponse',
  'Collection',
  'CollectionList',
  'Insights',
  'JobStatus',
  'Note',
  'NoteAudioLink',
  'NoteCollections',
  'NoteList',
  'SearchResults',
  'SimilarSegments',
  'Transcription',
] as const;

export type ContractResult = (typeof CONTRACT_RESULTS)[number];

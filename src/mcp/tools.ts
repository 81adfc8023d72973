import type { StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { getArtifact, requestArtifact } from '../domain/artifact-jobs.ts';
import { askWorkspace } from '../domain/ask.ts';
import {
  addNoteToCollection,
  createCollection,
  deleteCollection,
  listCollections,
  removeNoteFromCollection,
  updateCollection,
} from '../domain/collections.ts';
import { entityTagOf, parseTagCondition, type TagCondition } from '../domain/entity-tags.ts';
import { UnauthorizedError } from '../domain/errors.ts';
import { getInsights, requestInsights } from '../domain/insights-jobs.ts';
import { noteAudioLink } from '../domain/note-audio.ts';
import { deleteNote, getNote, listNotes, updateNote } from '../domain/notes.ts';
import type { McpScope } from '../domain/scopes.ts';
import { searchNotes } from '../domain/search.ts';
import { findSimilarSegments } from '../domain/similar-segments.ts';
import { renderTranscript, type TranscriptionView } from '../domain/transcript-exports.ts';
import { editTranscription, undoTranscriptionEdit } from '../domain/transcript-revisions.ts';
import { transcriptEntityTag } from '../domain/transcript-tags.ts';
import { deleteTranscription, getTranscription } from '../domain/transcription.ts';
import { type NoteView, noteEntityTag } from '../domain/views.ts';
import {
  addNoteToCollectionBody,
  artifactParams,
  askBody,
  collectionNoteParams,
  collectionParams,
  createCollectionBody,
  editTranscriptionBody,
  findSimilarSegmentsBody,
  generateArtifactBody,
  generateInsightsBody,
  listNotesQuery,
  noteParams,
  searchNotesQuery,
  transcriptionQuery,
  undoTranscriptionEditBody,
  updateCollectionBody,
  updateNoteBody,
  uuidAsSent,
} from '../http/schemas.ts';
import type { AccessGrant } from '../ports/access-tokens.ts';
import type { AskServices } from '../wiring/ask-services.ts';
import type { Services } from '../wiring/services.ts';
import {
  accountResult,
  deletionResult,
  editableNote,
  editableTranscript,
  outputOf,
  transcriptTextResult,
} from './output-schemas.ts';
import { editableResultOf, failure, notYet, resultOf, type ToolResult, textOf } from './results.ts';

/**
 * The MCP tools: the REST operations by operationId, minus submitTranscription (local audio goes
 * through the CLI). Each runs the same domain function as its REST handler, for the account of the
 * access token, with its input validated by the same zod schemas (path, query and body merged into
 * one flat, strict object).
 */
export interface ToolContext {
  grant: AccessGrant;
  services: () => Services;
  askServices: () => AskServices;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  /** What structuredContent holds when the tool succeeds (src/mcp/output-schemas.ts). */
  outputSchema: StandardSchemaWithJSON;
  annotations: ToolAnnotations;
  /** Every scope the access token must carry to call the tool. */
  scopes: readonly McpScope[];
  run(context: ToolContext, input: unknown): Promise<ToolResult>;
}

interface ToolDefinition<S extends z.ZodObject> extends Omit<McpTool, 'inputSchema' | 'run'> {
  inputSchema: S;
  run(context: ToolContext, input: z.output<S>): Promise<ToolResult>;
}

function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): McpTool {
  // The SDK validates the arguments with `inputSchema` before `run` sees them.
  return tool as unknown as McpTool;
}

const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/**
 * generateInsights and generateNoteArtifact: each call may start a new generation whose result
 * replaces the earlier one (destructive, in the spec's sense of "not only additive"), and a repeat
 * can start another (not idempotent).
 */
const REPLACES_RESULTS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
/**
 * updateNote and the deletions: they overwrite or remove what was there, and a repeat with the same
 * arguments has no further effect (the same state again, or nothing left to delete: 404).
 */
const OVERWRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * createCollection: adds a collection; a repeat is refused (the name is taken), nothing is replaced.
 * Transcript corrections and undo: each adds a revision (the earlier ones and the recogniser's
 * output stay, undo goes back), and a repeat with the same if_match is refused (412).
 */
const ADDS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** addNoteToCollection: only adds a filing; filing the same note again changes nothing. */
const ADDS_ONCE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const FIELD_DESCRIPTIONS: Record<string, string> = {
  collection_id:
    'The collection ID (a UUID, from listCollections or createCollection). listNotes, searchNotes and askWorkspace: only the notes filed in this collection.',
  name: 'The collection name, 1 to 100 characters on one line; unique in the account (case does not count).',
  instructions:
    "What the Insights and artifacts of the collection's notes should bring out, e.g. 'Action items only' or 'A recipe: ingredients, then steps' (at most 1,000 characters; line breaks allowed). Language models follow them as preferences for content and emphasis, never for format, citations or language; the local extractive engine cannot follow them. null (or an empty text) means none; updateCollection: null clears them.",
  retention_days:
    "Days after which the collection's notes move to the trash (1 to 3650), counted from when each note was made or last restored; protected notes stay. The trash keeps them for the trash period (30 days unless the operator set NOTES_TRASH_DAYS) before deleting them for good. null: keep notes until a person trashes them.",
  protected:
    "true keeps the note from every collection's retention period (it is never moved to the trash for its age); false lets the periods apply again.",
  note_id: 'The note ID (a UUID, from listNotes or an earlier result).',
  artifact_kind: 'epiphany, deep_research or podcast.',
  confirm_note_id:
    'The note ID again, repeated exactly as in note_id (character for character, same case), to confirm that the user approved this deletion for this note just now.',
  limit: 'Items per page: listNotes 1 to 100 (default 20); searchNotes 1 to 50 (default 10).',
  q: 'The words to find, 1 to 500 characters; put words in double quotes to require them next to each other ("cloud budget").',
  include_trashed: 'true to also search notes in the trash (default false).',
  cursor: 'next_cursor of the previous page, unchanged (omit for the first page).',
  format: 'json (default: structured transcript), srt, vtt or md (the transcript as text).',
  language: "'auto' (default: the transcript's language) or a language code such as 'en' or 'pt-BR'.",
  regenerate: 'true to generate again even when an artifact exists (default false).',
  question: 'The question, 1 to 2000 characters.',
  note_ids:
    'Up to 100 note IDs to search within; omit (or null) to search all processed notes (of the collection, with collection_id).',
  title: 'The new title, 1 to 200 characters.',
  state:
    "'active' or 'trashed'. listNotes: which notes to list (default active). updateNote: 'trashed' moves the note to the trash, 'active' restores it.",
  if_match:
    'updateNote: optional, recommended: the etag of the note as you last read it (the etag of a getNote or updateNote result). editTranscription and undoTranscriptionEdit: required: the etag of the transcript as you last read it (the etag of a getTranscription result with format json, or of an earlier correction); renaming speakers does not make it stale, unless a set_speaker gives a speaker by name. When it has changed since, nothing is changed and the tool answers 412: read it again, reapply your change, retry with the new etag.',
  edits:
    'Corrections applied in order, all or none (1 to 50): {op:"replace_text",segment,text}, {op:"set_speaker",segment,speaker}, {op:"merge",segment} (with the next segment), {op:"split",segment,at_word} (before that word, counted from 0 in the text) or {op:"split",segment,at_ms}. segment is the position in conversation_segments (from 0) of the transcript if_match names; each edit sees the result of the ones before it.',
  to: "'previous' (default: undo the last correction) or 'original' (back to the recogniser's transcript).",
  speaker_names:
    'Names for speaker labels (a segment\'s speaker_label), e.g. {"Speaker 1": "Alice"}; null removes a name. Merged into the names the note has; rename a label as often as you like. Names show wherever speakers are named (transcript, exports, Insights, artifacts, Ask); a transcript etag read before a rename stays good for corrections.',
};

/**
 * One flat, strict input object from the REST schemas of an operation: the same fields, the same
 * checks (including the body's own object-level rules), and unknown properties rejected.
 */
function inputOf<
  A extends z.core.$ZodShape,
  B extends z.core.$ZodShape = Record<never, never>,
  C extends z.core.$ZodShape = Record<never, never>,
>(parts: z.core.$ZodObject<A>, body?: z.core.$ZodObject<B>, extra?: C) {
  const shape: Record<string, z.core.$ZodType> = {
    ...parts._zod.def.shape,
    ...body?._zod.def.shape,
    ...extra,
  };
  for (const [name, field] of Object.entries(shape)) {
    const description = FIELD_DESCRIPTIONS[name];
    if (description) shape[name] = described(field, description);
  }
  // The body's checks read only the body's fields; the added ones do not disturb them.
  // `extra` may replace a field of the REST schemas (searchNotes takes a boolean include_trashed).
  const input = z
    .strictObject(shape as Omit<A & B, keyof C> & C)
    .check(...((body?._zod.def.checks ?? []) as never[]));
  return withJsonSchemaOfAllFields(input);
}

/**
 * The MCP SDK turns a tool's input schema into JSON Schema through the schema's Standard JSON Schema
 * method, which only knows the classic API's types: the REST fields are zod/mini's (a `_default`
 * there was "non-representable"). `z.toJSONSchema` converts both, so the object answers with it.
 */
function withJsonSchemaOfAllFields<T extends z.ZodType>(schema: T): T {
  const convert = (io: 'input' | 'output') => (options?: { target?: string }) =>
    z.toJSONSchema(schema, { io, ...(options?.target ? { target: options.target as 'draft-2020-12' } : {}) });
  Object.assign(schema['~standard'], { jsonSchema: { input: convert('input'), output: convert('output') } });
  return schema;
}

/**
 * A copy of `field` that carries `description` into the tool's JSON Schema: what the classic API's
 * `.describe()` does, for the REST schemas too, which are zod/mini's (src/http/schemas.ts) and have no
 * such method.
 */
function described(field: z.core.$ZodType, description: string): z.core.$ZodType {
  const copy = z.core.clone(field);
  z.globalRegistry.add(copy, { description });
  return copy;
}

const noteInput = inputOf(noteParams);

/**
 * The etag an agent passes back. Quotes are part of an entity tag, but models often drop them from a
 * value they copy: a bare tag is read as the quoted one.
 */
function tagConditionOf(ifMatch: string | undefined): TagCondition | undefined {
  if (ifMatch === undefined) return undefined;
  const bare = /^[\x21\x23-\x2b\x2d-\x7e]+$/.test(ifMatch) && ifMatch !== '*' && !ifMatch.startsWith('W/');
  return parseTagCondition(bare ? `"${ifMatch}"` : ifMatch, 'if_match');
}

/** A note's result with its etag, which agents need to update it without overwriting others. */
function noteResult(note: NoteView) {
  const etag = noteEntityTag(note);
  return editableResultOf(note, etag, [
    `etag of this note: ${etag} (pass it as if_match to updateNote so that a change made meanwhile is not overwritten).`,
  ]);
}

/** A transcript with the etag a correction must name (getTranscription's JSON representation). */
function transcriptResult(transcription: TranscriptionView) {
  const etag = transcriptEntityTag(transcription);
  return editableResultOf(transcription, etag, [
    `etag of this transcript: ${etag} (pass it as if_match to editTranscription or undoTranscriptionEdit).`,
  ]);
}

const requiredIfMatch = { if_match: z.string().min(1).max(1024) };

/** Both IDs as sent, so that confirmedNoteId compares what the caller wrote. */
const confirmedDeletionInput = inputOf(z.object({ note_id: uuidAsSent }), undefined, {
  confirm_note_id: uuidAsSent,
});

const POLL_RULE =
  'A job status (status queued or processing) is never a result: keep the note ID and poll the matching get tool at intervals of at least 2 seconds until it returns the result or an error.';

function accountOf(context: ToolContext): string {
  return context.grant.accountId;
}

export const MCP_TOOLS: readonly McpTool[] = [
  defineTool({
    name: 'getCurrentAccount',
    title: 'Get the current account',
    description:
      'Returns the account this connection acts for (account_id, name, created_at) and the access token in use (client_id and the granted scopes). Read-only. Call it first to check the connection and which scopes were granted: notes:read (read tools), notes:process (askWorkspace, generateInsights, generateNoteArtifact), notes:write (updateNote, the collection changes and the transcript corrections), notes:delete (deleteTranscription, deleteNote).',
    inputSchema: z.strictObject({}),
    outputSchema: outputOf(accountResult),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context) {
      const account = await context.services().accounts.getAccount(accountOf(context));
      if (!account) {
        throw new UnauthorizedError('The account this access token was issued for no longer exists');
      }
      return resultOf({
        account_id: account.account_id,
        name: account.name,
        created_at: account.created_at,
        access_token: { client_id: context.grant.clientId, scopes: context.grant.scopes },
      });
    },
  }),
  defineTool({
    name: 'listNotes',
    title: 'List notes',
    description:
      "Lists the account's notes, newest first, one page at a time: note IDs, titles, states and transcription status. Use it to discover note IDs, and keep them: the other note tools take note_id. Lists active notes by default; state 'trashed' lists the trash. For the next page pass next_cursor from the previous result as cursor, with the same state and collection_id; next_cursor is null on the last page. With collection_id only the notes filed in that collection are listed; such a page may hold fewer notes than limit while next_cursor still leads further. Read-only. Errors: 400 for a malformed cursor; 404 when there is no such collection.",
    inputSchema: inputOf(listNotesQuery),
    outputSchema: outputOf('NoteList'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      return resultOf(await listNotes(context.services(), accountOf(context), input));
    },
  }),
  defineTool({
    name: 'getNote',
    title: 'Get a note',
    description:
      "Returns one note: title, state, audio metadata, the collections it is filed in, its transcription job and, once completed, its transcription and Insights; whether it is protected from retention, when a collection's retention period moves it to the trash (expiry) or deletes it from the trash (deletes_at), and its history (trashed, restored, protected, by whom). transcription and insights are null until completed; null is not an error (check transcription_job, or poll getTranscription). Works for active and trashed notes. The result carries the etag of the note: pass it as if_match to updateNote. Read-only. Errors: 404 when the account has no note with this ID.",
    inputSchema: noteInput,
    outputSchema: outputOf(editableNote),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      return noteResult(await getNote(context.services(), accountOf(context), input.note_id));
    },
  }),
  defineTool({
    name: 'getTranscription',
    title: "Get a note's transcription (poll)",
    description: `Returns the note's transcription once it is ready: full_text, timestamped_full_text and speaker-labelled conversation_segments, each with its words (text, start_ms, end_ms) and a confidence from 0 to 1 (null when the engine reports none; low values mark words worth checking) (format json, the default), or the transcript as SubRip (srt), WebVTT (vtt) or Markdown (md) text. notice is null, or says that no speech was heard (code no_speech: no segments, nothing was invented) or that the recogniser could not follow the speech (code low_confidence, e.g. another language); show its detail to the user. A transcript carries its etag: the json one is what editTranscription and undoTranscriptionEdit take as if_match (each text format has its own). While the job is waiting for its upload, queued or processing, the result is a job status, NOT a transcript: call this tool again no sooner than 2 seconds later. ${POLL_RULE} Read-only. Errors: 404 when there is no such note or it has no transcription; 409 with status 'failed' when the transcription failed (terminal: stop polling). Audio cannot be submitted through MCP: local files are transcribed with the notes CLI.`,
    inputSchema: inputOf(noteParams, transcriptionQuery),
    outputSchema: outputOf(editableTranscript, 'JobStatus', transcriptTextResult),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      const result = await getTranscription(context.services(), accountOf(context), input.note_id);
      if (result.kind !== 'ready') return notYet(result.job, 'getTranscription', { note_id: input.note_id });
      const format = input.format ?? 'json';
      // The etag REST gives this representation: agents can tell whether the transcript changed.
      if (format === 'json') return transcriptResult(result.transcription);
      const text = renderTranscript(result.transcription, format, result.title);
      const etag = entityTagOf(text);
      return {
        content: [...textOf(text).content, { type: 'text', text: `etag of this transcript: ${etag}` }],
        structuredContent: { note_id: input.note_id, format, text, etag },
      };
    },
  }),
  defineTool({
    name: 'generateInsights',
    title: 'Generate Insights for a note',
    description: `Starts generating structured Insights (summary, key points, topics, action items, decisions, open questions, chapters, speakers) from the note's completed transcription. The result is ALWAYS a job status, never the Insights: keep the note ID and poll getInsights at intervals of at least 2 seconds until it returns the Insights or an error. While a job is queued or processing the same job is returned; otherwise a new generation starts and replaces earlier Insights when it completes. Runs inference in the background. The instructions of the collections the note is in (updateCollection) are given to the engine, by collection name; the result's collection_instructions names them and says whether the engine followed them. Errors: 404 when there is no such note; 409 when the note has no completed transcription, no speech was heard in it (notice no_speech), or it is in the trash.`,
    inputSchema: inputOf(noteParams, generateInsightsBody),
    outputSchema: outputOf('JobStatus'),
    annotations: REPLACES_RESULTS,
    scopes: ['notes:process'],
    async run(context, input) {
      const job = await requestInsights(context.services(), accountOf(context), input.note_id);
      return notYet(job, 'getInsights', { note_id: input.note_id });
    },
  }),
  defineTool({
    name: 'getInsights',
    title: "Get a note's Insights (poll)",
    description: `Returns the note's Insights once generated, or a job status while generation is queued or processing (NOT a result: call again no sooner than 2 seconds later). ${POLL_RULE} Read-only. Errors: 404 when there is no such note or Insights were never requested (call generateInsights); 409 with status 'failed' when generation failed (terminal: stop polling; call generateInsights again to retry).`,
    inputSchema: noteInput,
    outputSchema: outputOf('Insights', 'JobStatus'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      const result = await getInsights(context.services(), accountOf(context), input.note_id);
      return result.kind === 'ready'
        ? resultOf(result.insights)
        : notYet(result.job, 'getInsights', { note_id: input.note_id });
    },
  }),
  defineTool({
    name: 'generateNoteArtifact',
    title: 'Generate an artifact (epiphany, deep research, podcast)',
    description: `Generates content from the note's completed transcription: epiphany (non-obvious connections and ideas), deep_research (a researched report) or podcast (a two-host script with synthesized audio). Every statement is grounded in the transcript and cites it. Returns the artifact when one is already available and regenerate is false (an explicit language other than the existing artifact's counts as a new request); otherwise a job status, which is NOT a result: keep the note ID and poll getNoteArtifact with the same note_id and artifact_kind at intervals of at least 2 seconds until it returns the artifact or an error. regenerate true starts a new generation that replaces the existing artifact. Runs inference in the background. Errors: 404 when there is no such note; 409 when the note has no completed transcription, no speech was heard in it (notice no_speech), or it is in the trash; 422 when the language cannot be produced (the local engine writes only in the transcript's language; a podcast needs voices for the language).`,
    inputSchema: inputOf(artifactParams, generateArtifactBody),
    outputSchema: outputOf('Artifact', 'JobStatus'),
    annotations: REPLACES_RESULTS,
    scopes: ['notes:process'],
    async run(context, input) {
      const result = await requestArtifact(
        context.services(),
        accountOf(context),
        input.note_id,
        input.artifact_kind,
        { language: input.language, regenerate: input.regenerate },
      );
      return result.kind === 'ready'
        ? resultOf(result.artifact)
        : notYet(result.job, 'getNoteArtifact', {
            note_id: input.note_id,
            artifact_kind: input.artifact_kind,
          });
    },
  }),
  defineTool({
    name: 'getNoteArtifact',
    title: 'Get an artifact, or its job while it is generated',
    description: `Returns the note's artifact of the given kind when it is ready, or a job status while it is generated (NOT a result: call again no sooner than 2 seconds later). ${POLL_RULE} A podcast's content.audio.url is a fresh, time-limited download link on every call. Read-only. Errors: 404 when there is no such note or no artifact of this kind (call generateNoteArtifact); 409 with status 'failed' when the last generation failed (terminal: stop polling; request it again with generateNoteArtifact).`,
    inputSchema: inputOf(artifactParams),
    outputSchema: outputOf('Artifact', 'JobStatus'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      const result = await getArtifact(
        context.services(),
        accountOf(context),
        input.note_id,
        input.artifact_kind,
      );
      return result.kind === 'ready'
        ? resultOf(result.artifact)
        : notYet(result.job, 'getNoteArtifact', {
            note_id: input.note_id,
            artifact_kind: input.artifact_kind,
          });
    },
  }),
  defineTool({
    name: 'askWorkspace',
    title: 'Ask a question across processed notes',
    description:
      "Answers a question using only the account's processed notes (completed transcriptions, not in the trash; never general knowledge). Returns the answer, the IDs of the supporting notes (note_ids) and citations (note_id, note_title, start_ms, end_ms, quote, and the sentence the answer rests on with its sentence_start_ms: the moment to open) into their transcripts. The supporting note IDs MUST be kept in the final answer shown to the user. Omit note_ids (or send null) to search all processed notes, or list up to 100 note IDs to narrow the scope; collection_id limits it to the notes filed in that collection (with note_ids too: the listed notes that are in the collection). When no note covers the question the answer says so and note_ids is empty. Runs inference within the call (allow up to 30 seconds). Errors: 400 when no processed notes are available in the requested scope; 404 when there is no such collection; 429 when the AI provider is rate-limited (back off and retry); 502 when no answer could be generated (retry later).",
    inputSchema: inputOf(askBody),
    outputSchema: outputOf('AskResponse'),
    annotations: READ_ONLY,
    scopes: ['notes:read', 'notes:process'],
    async run(context, input) {
      const answer = await askWorkspace(
        { ...context.services(), ...context.askServices() },
        accountOf(context),
        input,
      );
      const reminder =
        answer.note_ids.length > 0
          ? [
              `Supporting note IDs (keep them in the final answer shown to the user): ${answer.note_ids.join(', ')}`,
            ]
          : [];
      return resultOf(answer, reminder);
    },
  }),
  defineTool({
    name: 'searchNotes',
    title: 'Search notes by what was said',
    description:
      'Full-text search over the account\'s processed notes (titles and transcripts), best first: each result has the note (note_id, title, state, created_at), a relevance score, and up to 3 matching segments with start_ms, end_ms, speaker and a snippet, so you can cite the note ID and the moment in the recording. highlights are {start, end} offsets into snippet (title_highlights into note.title), never markup. Words match by stem ("deciding" finds "decided"); words in double quotes must stand next to each other. Trashed notes only with include_trashed true; collection_id searches one collection. For the next page pass next_cursor as cursor with the same q, include_trashed and collection_id; a page may hold fewer results than limit while next_cursor still leads further. Read-only, no inference: use it to find notes, askWorkspace to answer a question from them. Errors: 400 for a q with no searchable words or an invalid cursor; 404 when there is no such collection.',
    inputSchema: inputOf(searchNotesQuery, undefined, { include_trashed: z.boolean().default(false) }),
    outputSchema: outputOf('SearchResults'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      return resultOf(await searchNotes(context.services(), accountOf(context), input));
    },
  }),
  defineTool({
    name: 'updateNote',
    title: 'Rename, trash or restore a note',
    description:
      "Renames a note (title), moves it to the trash (state 'trashed') or restores it (state 'active'), names its transcript's speakers (speaker_names), and/or protects it from its collections' retention periods (protected). Give at least one of them. Returns the updated note. Moving a note to the trash is reversible and is not deletion; trashed notes are excluded from Ask and cannot be processed until restored. Idempotent. Send if_match (the etag from getNote or an earlier updateNote) so that a change someone else made since you read the note is not overwritten; the result carries the note's new etag. Errors: 400 for invalid input; 404 when there is no such note; 412 when if_match is given and the note has changed since (nothing was changed: read it again, reapply, retry with the new etag).",
    inputSchema: inputOf(noteParams, updateNoteBody, { if_match: z.string().min(1).max(1024).optional() }),
    outputSchema: outputOf(editableNote),
    annotations: OVERWRITES,
    scopes: ['notes:write'],
    async run(context, input) {
      const { note_id, if_match, ...changes } = input;
      return noteResult(
        await updateNote(context.services(), accountOf(context), note_id, changes, tagConditionOf(if_match)),
      );
    },
  }),
  defineTool({
    name: 'editTranscription',
    title: 'Correct a transcript',
    description:
      "Corrects a note's completed transcript: replace a segment's text, set its speaker (a label such as 'Speaker 2', one not used yet for a new speaker, or a name given with updateNote; anything else is 422), set_speakers (several segments, e.g. a range or the ones findSimilarSegments proposed, given to one speaker at once), merge a segment with the next one, split one in two at a word or a time, or merge_speakers (every segment of one speaker given to another: one person heard as two). Read the transcript first with getTranscription (format json) and pass its etag as if_match (required): segments are numbered from 0 in that revision. Returns the corrected transcript (revision, edited_at) and its new etag; full_text, the exports, askWorkspace and search follow at once, and Insights or artifacts made before say outdated: true until generated again. The recogniser's transcript is kept: undoTranscriptionEdit goes back. Errors: 400 for invalid input; 404 when there is no such note; 409 when it has no completed transcription; 412 when the transcript changed since you read it (nothing was changed: read it again, reapply, retry with the new etag); 422 when an edit cannot apply (no such segment, merge of the last one, split outside the segment, merge_speakers of a speaker with no segment or into itself); 428 without if_match.",
    inputSchema: inputOf(noteParams, editTranscriptionBody, requiredIfMatch),
    outputSchema: outputOf(editableTranscript),
    annotations: ADDS,
    scopes: ['notes:write'],
    async run(context, input) {
      return transcriptResult(
        await editTranscription(
          context.services(),
          accountOf(context),
          input.note_id,
          input.edits,
          tagConditionOf(input.if_match),
        ),
      );
    },
  }),
  defineTool({
    name: 'undoTranscriptionEdit',
    title: 'Undo a transcript correction',
    description:
      "Goes back to the transcript as it was before the last correction (to 'previous', the default; call again to go further back) or to the recogniser's transcript (to 'original', revision 0). Pass the transcript's current etag as if_match (required). Returns the transcript now current and its etag. Errors: 404 when there is no such note; 409 when there is nothing to undo or no completed transcription; 412 when the transcript changed since you read it; 428 without if_match.",
    inputSchema: inputOf(noteParams, undoTranscriptionEditBody, requiredIfMatch),
    outputSchema: outputOf(editableTranscript),
    annotations: ADDS,
    scopes: ['notes:write'],
    async run(context, input) {
      return transcriptResult(
        await undoTranscriptionEdit(
          context.services(),
          accountOf(context),
          input.note_id,
          input.to,
          tagConditionOf(input.if_match),
        ),
      );
    },
  }),
  defineTool({
    name: 'findSimilarSegments',
    title: 'Find segments spoken in a similar voice',
    description:
      "After segments were given to a speaker (set_speaker), finds the other segments of the transcript whose voice is closer to those (examples, default: all of the speaker's) than to the rest of their own speaker's, by the voices the self-hosted diarizer kept. Read-only: returns speaker_label, the segments (segment number, times, current speaker_label, similarity) and the etag of the revision they are numbered in; tell the user how many, then give them to the speaker with one editTranscription set_speakers edit (if_match: that etag), which one undoTranscriptionEdit takes back. Errors: 404 when there is no such note; 409 when the transcript keeps no voices (made before they were kept, or by Amazon Transcribe) or is not complete; 422 when an example is not the speaker's segment.",
    inputSchema: inputOf(noteParams, findSimilarSegmentsBody),
    outputSchema: outputOf('SimilarSegments'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      const { note_id, ...request } = input;
      return resultOf(await findSimilarSegments(context.services(), accountOf(context), note_id, request));
    },
  }),
  defineTool({
    name: 'listCollections',
    title: 'List collections',
    description:
      "Lists every collection of the account by name (at most 100, no paging): collection_id, name, instructions (null when none), retention_days (null when notes are kept), created_at, updated_at. A note can be in several collections; getNote shows a note's collections, listNotes with collection_id lists a collection's notes, askWorkspace with collection_id asks only about them. Read-only.",
    inputSchema: z.strictObject({}),
    outputSchema: outputOf('CollectionList'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context) {
      return resultOf(await listCollections(context.services(), accountOf(context)));
    },
  }),
  defineTool({
    name: 'createCollection',
    title: 'Create a collection',
    description:
      "Creates an empty collection with this name, and optionally instructions for its notes' Insights and artifacts and a retention period (retention_days) after which its notes move to the trash, and returns it with its collection_id; file notes in it with addNoteToCollection. Names are unique in the account regardless of case: call listCollections first and reuse an existing collection rather than creating a near-duplicate. Errors: 400 for an invalid name, instructions (over 1,000 characters, control characters) or retention_days; 409 when another collection has the name (its collection_id is in detail) or the account has 100 collections.",
    inputSchema: inputOf(createCollectionBody),
    outputSchema: outputOf('Collection'),
    annotations: ADDS,
    scopes: ['notes:write'],
    async run(context, input) {
      return resultOf(await createCollection(context.services(), accountOf(context), input));
    },
  }),
  defineTool({
    name: 'updateCollection',
    title: 'Rename a collection or change its instructions or retention',
    description:
      "Renames a collection and/or sets its instructions for its notes' Insights and artifacts and its retention period (retention_days; null clears either), and returns it; give at least one of name, instructions and retention_days. The notes filed in it stay filed; their Insights and artifacts made with other instructions then say outdated: true (outdated_reasons instructions) until generated again. A retention period applies at the next hourly run: notes already older move to the trash then, unless protected (updateNote). Idempotent. Errors: 400 for an invalid name, instructions or retention_days, or none given; 404 when there is no such collection; 409 when another collection has the name.",
    inputSchema: inputOf(collectionParams, updateCollectionBody),
    outputSchema: outputOf('Collection'),
    annotations: OVERWRITES,
    scopes: ['notes:write'],
    async run(context, input) {
      const { collection_id, ...changes } = input;
      return resultOf(await updateCollection(context.services(), accountOf(context), collection_id, changes));
    },
  }),
  defineTool({
    name: 'deleteCollection',
    title: 'Delete a collection (its notes stay)',
    description:
      'Deletes a collection. The notes filed in it are NOT deleted: they stay in the account, in their other collections and in Ask. Confirm with the user which collection they mean before calling. Errors: 404 when there is no such collection (also when repeated after success).',
    inputSchema: inputOf(collectionParams),
    outputSchema: outputOf(deletionResult),
    annotations: OVERWRITES,
    scopes: ['notes:write'],
    async run(context, input) {
      await deleteCollection(context.services(), accountOf(context), input.collection_id);
      return resultOf({ collection_id: input.collection_id, deleted: 'collection' }, [
        `Deleted collection ${input.collection_id}; its notes remain.`,
      ]);
    },
  }),
  defineTool({
    name: 'addNoteToCollection',
    title: 'File a note in a collection',
    description:
      'Files a note in a collection and returns every collection the note is now in; the note stays in its other collections (a note can be in up to 20). Filing a note that is already there changes nothing. Errors: 404 when there is no such note or collection; 409 when the note is already in 20 collections.',
    inputSchema: inputOf(collectionParams, addNoteToCollectionBody),
    outputSchema: outputOf('NoteCollections'),
    annotations: ADDS_ONCE,
    scopes: ['notes:write'],
    async run(context, input) {
      return resultOf(
        await addNoteToCollection(context.services(), accountOf(context), input.collection_id, input.note_id),
      );
    },
  }),
  defineTool({
    name: 'removeNoteFromCollection',
    title: 'Take a note out of a collection',
    description:
      'Takes a note out of a collection (the note itself is not changed or deleted) and returns every collection the note is still in. Idempotent. Errors: 404 when there is no such note or collection.',
    inputSchema: inputOf(collectionNoteParams),
    outputSchema: outputOf('NoteCollections'),
    annotations: OVERWRITES,
    scopes: ['notes:write'],
    async run(context, input) {
      return resultOf(
        await removeNoteFromCollection(
          context.services(),
          accountOf(context),
          input.collection_id,
          input.note_id,
        ),
      );
    },
  }),
  defineTool({
    name: 'deleteTranscription',
    title: "Remove a note's transcription and generated results",
    description:
      "DESTRUCTIVE. Removes the note's transcription and everything derived from it (transcript, Insights, artifacts, its place in Ask); the note and its stored audio are kept, so it can be transcribed again (with the notes CLI). Get explicit confirmation from the user for this exact note immediately before calling; an earlier general request is not approval. confirm_note_id must repeat note_id exactly, character for character and in the same case, otherwise nothing is deleted. A transcription still queued or running is cancelled. Errors: 404 when there is no such note or it has no transcription.",
    inputSchema: confirmedDeletionInput,
    outputSchema: outputOf(deletionResult),
    annotations: OVERWRITES,
    scopes: ['notes:delete'],
    async run(context, input) {
      const noteId = confirmedNoteId(input);
      if (typeof noteId !== 'string') return noteId;
      await deleteTranscription(context.services(), accountOf(context), noteId);
      return resultOf({ note_id: noteId, deleted: 'transcription' }, [
        `Removed the transcription and generated results of note ${noteId}; the note remains.`,
      ]);
    },
  }),
  defineTool({
    name: 'deleteNote',
    title: 'Permanently delete a note',
    description:
      "DESTRUCTIVE AND PERMANENT. Deletes the note and everything that belongs to it (audio, transcription, Insights, artifacts, search entries), whatever its state; it cannot be undone. To remove a note reversibly use updateNote with state 'trashed'; to keep the note but remove its generated results use deleteTranscription. Get explicit confirmation from the user for this exact note immediately before calling; an earlier general request is not approval. confirm_note_id must repeat note_id exactly, character for character and in the same case, otherwise nothing is deleted. Errors: 404 when there is no such note (also when repeated after success).",
    inputSchema: confirmedDeletionInput,
    outputSchema: outputOf(deletionResult),
    annotations: OVERWRITES,
    scopes: ['notes:delete'],
    async run(context, input) {
      const noteId = confirmedNoteId(input);
      if (typeof noteId !== 'string') return noteId;
      await deleteNote(context.services(), accountOf(context), noteId);
      return resultOf({ note_id: noteId, deleted: 'note' }, [`Permanently deleted note ${noteId}.`]);
    },
  }),
  defineTool({
    name: 'getNoteAudio',
    title: "Get a link to a note's recording",
    description:
      "Returns a short-lived link (url, expires_at, content_type, size_bytes) to the note's uploaded recording, valid about 10 minutes, for the user to listen to (the link is a credential while it lasts: do not store it). Read-only. Errors: 404 when there is no such note; 409 when no audio has been uploaded.",
    inputSchema: noteInput,
    outputSchema: outputOf('NoteAudioLink'),
    annotations: READ_ONLY,
    scopes: ['notes:read'],
    async run(context, input) {
      return resultOf(await noteAudioLink(context.services(), accountOf(context), input.note_id));
    },
  }),
];

/**
 * The note ID of a confirmed deletion (lower-cased, as everywhere), or the refusal when
 * confirm_note_id does not repeat note_id exactly: the docs promise an exact repetition, so a case
 * variant of the same ID is refused too (a caller that copies the ID cannot get it wrong).
 */
function confirmedNoteId(input: z.output<typeof confirmedDeletionInput>): string | ToolResult {
  if (input.note_id === input.confirm_note_id) return noteParams.parse(input).note_id;
  return failure(400, {
    detail: `confirm_note_id (${input.confirm_note_id}) does not repeat note_id (${input.note_id}) exactly: nothing was deleted. Ask the user to confirm deleting this exact note, then call again with confirm_note_id equal to note_id, character for character.`,
  });
}

export const MCP_TOOL_NAMES: readonly string[] = MCP_TOOLS.map((tool) => tool.name);

const byName = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): McpTool | undefined {
  return byName.get(name);
}

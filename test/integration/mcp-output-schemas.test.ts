import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
  type Tool,
} from '@modelcontextprotocol/client';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../src/mcp/tools.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import { addFormats } from '../support/contract.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * Every tool's outputSchema (tools/list) against what the tool really returns: each of the 23 tools
 * is called on the local runtime in the state it is meant for (a transcribed conversation, its
 * Insights and an epiphany generated, collections, a correction, deletions), through the SDK v2
 * client in 2026-07-28 with a token from the OAuth flow (all four scopes), and each structuredContent
 * is validated with Ajv (JSON Schema 2020-12, formats checked) against the schema the tool advertised.
 * A job status and a result are both checked where a tool can answer either.
 */
let service: InProcessService;
let client: Client;
let tools: Map<string, Tool>;
let noteId: string;
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
/** Tool name -> the kinds of result that were validated (e.g. `result`, `job status`). */
const validated = new Map<string, Set<string>>();

beforeAll(async () => {
  service = await startInProcess();
  const base = service.runtime.apiUrl;
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  const { access_token } = await accessTokenFor({
    baseUrl: base,
    apiKey,
    scope: 'notes:read notes:process notes:write notes:delete',
    tick: ['notes:write', 'notes:delete'],
  });
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('two-speakers fixture missing');
  noteId = randomUUID();
  await submitAndUpload(service.api, noteId, conversation.audio, 'audio/wav', 'Planning meeting');
  expect((await pollUntilDone(service.api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);

  client = new Client(
    { name: 'output-schemas', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${access_token}` } },
    }),
  );
  tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
}, 300_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await service?.stop();
});

/** Calls a tool, expects success, validates structuredContent against its advertised outputSchema. */
async function check(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  expect(result.isError, `${name}: ${text}`).toBeFalsy();
  const content = result.structuredContent as Record<string, unknown>;
  expect(content, `${name} returned no structuredContent`).toBeDefined();
  let validate = validators.get(name);
  if (!validate) {
    const schema = tools.get(name)?.outputSchema;
    expect(schema, `${name} advertises no outputSchema`).toBeDefined();
    validate = ajv.compile(schema as object);
    validators.set(name, validate);
  }
  expect(validate(content), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  const kind = isJobStatus(content) ? 'job status' : 'result';
  validated.set(name, new Set([...(validated.get(name) ?? []), kind]));
  return content;
}

/** The etag getTranscription's structuredContent gives for the transcript as it is now (validated). */
async function transcriptEtag(): Promise<unknown> {
  const { etag } = await check('getTranscription', { note_id: noteId });
  expect(etag).toEqual(expect.stringMatching(/^"/));
  return etag;
}

function isJobStatus(content: Record<string, unknown>): boolean {
  return typeof content.kind === 'string' && typeof content.stage === 'string' && 'attempts' in content;
}

/** Polls a tool (validating every answer) until it gives a result rather than a job status. */
async function untilResult(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const content = await check(name, args);
    if (!isJobStatus(content)) return content;
    await sleep(250);
  }
  throw new Error(`${name} gave no result after 600 polls`);
}

describe('every tool answers with structuredContent its advertised outputSchema accepts', () => {
  it('advertises an object outputSchema for each of the 23 tools', () => {
    expect([...tools.keys()].sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const [name, tool] of tools) expect(tool.outputSchema?.type, name).toBe('object');
  });

  it('reads the account, notes, a note, its transcript (JSON and text) and its recording link', async () => {
    await check('getCurrentAccount');
    await check('listNotes', { limit: 5 });
    await check('getNote', { note_id: noteId });
    await check('getTranscription', { note_id: noteId });
    await check('getTranscription', { note_id: noteId, format: 'srt' });
    await check('getNoteAudio', { note_id: noteId });
    // A note whose upload never came: its transcription answers with the job status.
    const waiting = randomUUID();
    const submitted = await service.api('POST', `/v1/notes/${waiting}/transcription`, {
      body: { title: 'Not uploaded', content_type: 'audio/wav', size_bytes: 1000 },
    });
    expect(submitted.status).toBe(202);
    expect(isJobStatus(await check('getTranscription', { note_id: waiting }))).toBe(true);
    await check('deleteNote', { note_id: waiting, confirm_note_id: waiting });
  });

  it('generates Insights and an epiphany (job status, then the result), then asks and searches', async () => {
    expect(isJobStatus(await check('generateInsights', { note_id: noteId }))).toBe(true);
    await untilResult('getInsights', { note_id: noteId });
    await check('generateNoteArtifact', { note_id: noteId, artifact_kind: 'epiphany' });
    await untilResult('getNoteArtifact', { note_id: noteId, artifact_kind: 'epiphany' });
    // Asked again once it exists, it answers with the artifact itself.
    expect(
      isJobStatus(await check('generateNoteArtifact', { note_id: noteId, artifact_kind: 'epiphany' })),
    ).toBe(false);
    await check('askWorkspace', { question: 'What was planned?' });
    await check('searchNotes', { q: 'meeting' });
  });

  it('renames a note, corrects and restores its transcript, each with the etag of the structuredContent before', async () => {
    const { etag: noteEtag } = await check('getNote', { note_id: noteId });
    const renamed = await check('updateNote', {
      note_id: noteId,
      title: 'Planning meeting (reviewed)',
      if_match: noteEtag,
    });
    expect(renamed.etag).toEqual(expect.stringMatching(/^"/));
    expect(renamed.etag).not.toBe(noteEtag);
    const etag = await transcriptEtag();
    const corrected = await check('editTranscription', {
      note_id: noteId,
      if_match: etag,
      edits: [{ op: 'replace_text', segment: 0, text: 'Corrected opening.' }],
    });
    expect(corrected.revision).toBe(1);
    expect(corrected.etag).toBe(await transcriptEtag());
    // The diarizer kept the recording's voices: segments like Speaker 1's can be looked for.
    const similar = await check('findSimilarSegments', { note_id: noteId, speaker: 'Speaker 1' });
    expect(similar.speaker_label).toBe('Speaker 1');
    await check('undoTranscriptionEdit', { note_id: noteId, if_match: await transcriptEtag() });
  });

  it('creates, lists, renames and deletes a collection, filing the note in it and out again', async () => {
    const collection = await check('createCollection', { name: 'Planning' });
    const collectionId = String(collection.collection_id);
    await check('listCollections');
    await check('updateCollection', { collection_id: collectionId, name: 'Planning 2027' });
    await check('addNoteToCollection', { collection_id: collectionId, note_id: noteId });
    await check('removeNoteFromCollection', { collection_id: collectionId, note_id: noteId });
    await check('deleteCollection', { collection_id: collectionId });
  });

  it('removes the transcription, then the note', async () => {
    await check('deleteTranscription', { note_id: noteId, confirm_note_id: noteId });
    await check('deleteNote', { note_id: noteId, confirm_note_id: noteId });
  });

  it("admits a tool error's structuredContent (the REST status and detail): clients validate errors too", async () => {
    const missing = randomUUID();
    const result = (await client.callTool({
      name: 'getNote',
      arguments: { note_id: missing },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ status_code: 404, detail: `No note with ID ${missing}` });
    const validate = ajv.compile(tools.get('getNote')?.outputSchema as object);
    expect(validate(result.structuredContent), ajv.errorsText(validate.errors)).toBe(true);
  });

  it('has validated a successful result of every tool, and a job status of each that can give one', () => {
    expect([...validated.keys()].sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const name of ['getTranscription', 'generateInsights', 'generateNoteArtifact']) {
      expect(validated.get(name), name).toContain('job status');
    }
    for (const name of MCP_TOOL_NAMES.filter((tool) => tool !== 'generateInsights')) {
      expect(validated.get(name), name).toContain('result');
    }
  });
});

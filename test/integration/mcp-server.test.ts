import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpScope } from '../../src/domain/scopes.ts';
import { lambdaContext } from '../../src/local/lambda-context.ts';
import { createMcpHandler } from '../../src/mcp/handler.ts';
import { mcpLambdaHandler } from '../../src/mcp/lambda.ts';
import {
  type AccessGrant,
  type AccessTokenVerifier,
  InvalidAccessTokenError,
} from '../../src/ports/access-tokens.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * A stand-in for the OAuth authorization server's verifier until it lands: it accepts only the random
 * tokens it minted itself, each mapped to a grant. Everything else about the endpoint is real: the
 * Lambda handler behind an HTTP server (API Gateway events), the local runtime's storage and workers,
 * and the official SDK client.
 */
class TestTokens implements AccessTokenVerifier {
  private readonly grants = new Map<string, AccessGrant>();

  mint(accountId: string, scopes: McpScope[]): string {
    const token = `test_${randomBytes(24).toString('base64url')}`;
    this.grants.set(token, { accountId, clientId: 'mcp-integration-test', scopes, grantId: randomUUID() });
    return token;
  }

  async verify(token: string): Promise<AccessGrant> {
    const grant = this.grants.get(token);
    if (!grant) throw new InvalidAccessTokenError('not a token this test issued');
    return grant;
  }
}

let service: InProcessService;
let http: Server;
let baseUrl: string;
let mcpUrl: string;
let accountId: string;
let otherAccountId: string;
let noteId: string;
const tokens = new TestTokens();
const clients: Client[] = [];

/** The Lambda handler behind node:http, the request turned into an API Gateway (payload 2.0) event. */
function serveLambda(handler: ReturnType<typeof mcpLambdaHandler>): Server {
  return createServer(async (req, res) => {
    const event = await toEvent(req);
    const result = await handler(event, lambdaContext('mcp', event.requestContext.requestId));
    res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
    res.end(result.body);
  });
}

async function toEvent(req: IncomingMessage): Promise<APIGatewayProxyEventV2> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const method = req.method ?? 'GET';
  const body = Buffer.concat(chunks);
  return {
    version: '2.0',
    routeKey: `${method} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: { ...headers, 'x-forwarded-proto': 'http' },
    requestContext: {
      domainName: headers.host ?? 'localhost',
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
      requestId: randomUUID(),
    },
    ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-integration-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function texts(result: CallToolResult): string[] {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
}

/** A raw JSON-RPC POST, as a client without the SDK (or with a different token) sends it. */
function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

beforeAll(async () => {
  service = await startInProcess();
  const { api } = service;
  accountId = String((await api('GET', '/v1/account')).body.account_id);
  const other = await service.otherAccount('mcp-other');
  otherAccountId = String((await other('GET', '/v1/account')).body.account_id);

  http = serveLambda(
    mcpLambdaHandler(() =>
      createMcpHandler({ verifier: tokens, publicUrl: baseUrl, allowedOrigins: [baseUrl] }),
    ),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  mcpUrl = `${baseUrl}/mcp`;

  const speech = await speechFixture('slt', 'wav');
  noteId = randomUUID();
  await submitAndUpload(api, noteId, speech.file, speech.contentType, 'Morning meeting');
  expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await new Promise((resolve) => http?.close(resolve));
  await service?.stop();
});

describe('the MCP server over Streamable HTTP with the SDK client', () => {
  it('initializes and lists the twenty-three tools with their annotations, not submitTranscription', async () => {
    const client = await connect(tokens.mint(accountId, ['notes:read', 'notes:process']));
    expect(client.getServerVersion()?.name).toBe('notes');
    expect(client.getInstructions()).toMatch(/notes CLI/);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'addNoteToCollection',
      'askWorkspace',
      'createCollection',
      'deleteCollection',
      'deleteNote',
      'deleteTranscription',
      'editTranscription',
      'findSimilarSegments',
      'generateInsights',
      'generateNoteArtifact',
      'getCurrentAccount',
      'getInsights',
      'getNote',
      'getNoteArtifact',
      'getNoteAudio',
      'getTranscription',
      'listCollections',
      'listNotes',
      'removeNoteFromCollection',
      'searchNotes',
      'undoTranscriptionEdit',
      'updateCollection',
      'updateNote',
    ]);
    const deleteNote = tools.find((tool) => tool.name === 'deleteNote');
    expect(deleteNote?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    for (const name of ['generateInsights', 'generateNoteArtifact']) {
      // A new generation replaces the earlier results.
      expect(tools.find((tool) => tool.name === name)?.annotations, name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
      });
    }
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    expect(tools.find((tool) => tool.name === 'getNote')?.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: false,
    });
  });

  it('reads the account, its notes, a note and its transcription for the account of the token', async () => {
    const client = await connect(tokens.mint(accountId, ['notes:read']));
    const account = await call(client, 'getCurrentAccount');
    expect(account.structuredContent).toMatchObject({
      account_id: accountId,
      access_token: { client_id: 'mcp-integration-test', scopes: ['notes:read'] },
    });
    expect(JSON.parse(texts(account)[0] ?? '')).toEqual(account.structuredContent);

    const list = await call(client, 'listNotes', { limit: 10 });
    const notes = (list.structuredContent as { notes: { note_id: string }[] }).notes;
    expect(notes.map((note) => note.note_id)).toContain(noteId);

    const note = await call(client, 'getNote', { note_id: noteId.toUpperCase() });
    expect(note.isError).toBeFalsy();
    expect(note.structuredContent).toMatchObject({ note_id: noteId, title: 'Morning meeting' });

    const transcription = await call(client, 'getTranscription', { note_id: noteId });
    expect(String(transcription.structuredContent?.full_text)).toMatch(/engineers/);
    const markdown = await call(client, 'getTranscription', { note_id: noteId, format: 'md' });
    // The text is what the model reads; structuredContent carries it with its format and etag, as
    // the tool's outputSchema says every successful result does.
    expect(texts(markdown)[0]).toMatch(/^# Morning meeting/);
    expect(markdown.structuredContent).toEqual({
      note_id: noteId,
      format: 'md',
      text: texts(markdown)[0],
      etag: expect.stringMatching(/^"/),
    });
  });

  it('starts Insights with a job status that is not a result, then getInsights returns them', async () => {
    const client = await connect(tokens.mint(accountId, ['notes:read', 'notes:process']));
    const started = await call(client, 'generateInsights', { note_id: noteId });
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ note_id: noteId, kind: 'insights', status: 'queued' });
    expect(texts(started)[0]).toMatch(/^NOT A RESULT YET.*Poll getInsights.*at least 2 seconds/);

    let result = await call(client, 'getInsights', { note_id: noteId });
    for (let polls = 0; texts(result)[0]?.startsWith('NOT A RESULT') && polls < 30; polls++) {
      await sleep(2_000);
      result = await call(client, 'getInsights', { note_id: noteId });
    }
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ note_id: noteId, schema_version: 1 });
  });

  it('answers a question with the supporting note IDs', async () => {
    const client = await connect(tokens.mint(accountId, ['notes:read', 'notes:process']));
    const result = await call(client, 'askWorkspace', { question: 'How many engineers will we hire?' });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { note_ids: string[] }).note_ids).toContain(noteId);
    expect(texts(result)[1]).toMatch(new RegExp(`keep them in the final answer.*${noteId}`));
  });

  it('searches with notes:read alone, returning note IDs, snippets and start_ms an agent can cite', async () => {
    const client = await connect(tokens.mint(accountId, ['notes:read']));
    const result = await call(client, 'searchNotes', { q: 'engineers', limit: 5, include_trashed: false });
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as {
      results: { note: { note_id: string }; segments: { start_ms: number; snippet: string }[] }[];
    };
    expect(page.results.map((hit) => hit.note.note_id)).toEqual([noteId]);
    expect(page.results[0]?.segments[0]?.snippet).toMatch(/engineers/);
    expect(page.results[0]?.segments[0]?.start_ms).toBeGreaterThanOrEqual(0);
    const stranger = await connect(tokens.mint(otherAccountId, ['notes:read']));
    const theirs = await call(stranger, 'searchNotes', { q: 'engineers' });
    expect((theirs.structuredContent as { results: unknown[] }).results).toEqual([]);
    const blank = await call(client, 'searchNotes', { q: 'the of and' });
    expect(blank.isError).toBe(true);
  });

  it('answers updateNote without notes:write with HTTP 403 insufficient_scope, and runs it once granted', async () => {
    const readProcess = tokens.mint(accountId, ['notes:read', 'notes:process']);
    const refused = await post(toolCall('updateNote', { note_id: noteId, title: 'Renamed' }), {
      authorization: `Bearer ${readProcess}`,
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="notes:read notes:write notes:process", resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp", error_description="notes:write required"`,
    );
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/updateNote needs notes:write/);

    // The SDK client without an auth provider surfaces the 403 as a StreamableHTTPError carrying the
    // status (with an auth provider it would re-authorize with the scope from the header, once).
    const client = await connect(readProcess);
    await expect(call(client, 'updateNote', { note_id: noteId, title: 'Renamed' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringMatching(/Insufficient scope/),
    });

    const writer = await connect(tokens.mint(accountId, ['notes:read', 'notes:write']));
    const renamed = await call(writer, 'updateNote', { note_id: noteId, title: 'Renamed meeting' });
    expect(renamed.structuredContent).toMatchObject({ note_id: noteId, title: 'Renamed meeting' });
  });

  it("gives agents the note's etag and refuses an updateNote whose if_match is stale with 412, changing nothing", async () => {
    const { api } = service;
    const writer = await connect(tokens.mint(accountId, ['notes:read', 'notes:write']));
    const etagIn = (result: CallToolResult) =>
      /etag of this note: ("[^"]+")/.exec(texts(result).join('\n'))?.[1];
    const read = await call(writer, 'getNote', { note_id: noteId });
    const etag = etagIn(read);
    // The same tag REST gives: a person in a browser and an agent share one notion of "current".
    expect(etag).toBe((await api('GET', `/v1/notes/${noteId}`)).headers.get('etag'));

    const updated = await call(writer, 'updateNote', {
      note_id: noteId,
      title: 'Agent title',
      if_match: etag,
    });
    expect(updated.isError).toBeFalsy();
    const fresh = etagIn(updated);
    expect(fresh).not.toBe(etag);

    const stale = await call(writer, 'updateNote', { note_id: noteId, title: 'Overwrite', if_match: etag });
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent).toMatchObject({
      status_code: 412,
      detail: expect.stringMatching(/changed/),
    });
    // Models drop the quotes of a tag they copy: the bare tag is the same tag.
    const bare = await call(writer, 'updateNote', {
      note_id: noteId,
      title: 'Agent title 2',
      if_match: fresh?.slice(1, -1),
    });
    expect(bare.structuredContent).toMatchObject({ title: 'Agent title 2' });

    // A person (REST) and the agent (MCP) update from the same read: one wins, the other is told.
    for (let round = 0; round < 10; round += 1) {
      const current = (await api('GET', `/v1/notes/${noteId}`)).headers.get('etag') as string;
      const [person, agent] = await Promise.all([
        api('PATCH', `/v1/notes/${noteId}`, {
          body: { title: `Person ${round}` },
          headers: { 'if-match': current },
        }),
        call(writer, 'updateNote', { note_id: noteId, title: `Agent ${round}`, if_match: current }),
      ]);
      expect([person.status === 200, !agent.isError].filter(Boolean)).toHaveLength(1);
      const title = (await api('GET', `/v1/notes/${noteId}`)).body.title;
      expect(title).toBe(person.status === 200 ? `Person ${round}` : `Agent ${round}`);
    }
  });

  it('corrects a transcript under notes:write with the etag REST gives; a person and an agent correcting from the same read: one wins', async () => {
    const { api } = service;
    const readOnly = tokens.mint(accountId, ['notes:read', 'notes:process']);
    const refused = await post(toolCall('undoTranscriptionEdit', { note_id: noteId, if_match: '*' }), {
      authorization: `Bearer ${readOnly}`,
    });
    expect(refused.status).toBe(403);

    const writer = await connect(tokens.mint(accountId, ['notes:read', 'notes:write']));
    const etagIn = (result: CallToolResult) =>
      /etag of this transcript: ("[^"]+")/.exec(texts(result).join('\n'))?.[1];
    const read = await call(writer, 'getTranscription', { note_id: noteId });
    const etag = etagIn(read);
    expect(etag).toBe((await api('GET', `/v1/notes/${noteId}/transcription`)).headers.get('etag'));

    const missing = await call(writer, 'editTranscription', {
      note_id: noteId,
      edits: [{ op: 'merge', segment: 0 }],
    });
    expect(missing.isError).toBe(true);

    const corrected = await call(writer, 'editTranscription', {
      note_id: noteId,
      edits: [{ op: 'replace_text', segment: 0, text: 'Corrected by the agent.' }],
      if_match: etag,
    });
    expect(corrected.isError).toBeFalsy();
    expect(corrected.structuredContent).toMatchObject({ revision: 1 });
    const fresh = etagIn(corrected);
    expect(fresh).toBe((await api('GET', `/v1/notes/${noteId}/transcription`)).headers.get('etag'));

    const stale = await call(writer, 'undoTranscriptionEdit', { note_id: noteId, if_match: etag });
    expect(stale.structuredContent).toMatchObject({ status_code: 412 });

    for (let round = 0; round < 5; round += 1) {
      const current = (await api('GET', `/v1/notes/${noteId}/transcription`)).headers.get('etag') as string;
      const [person, agent] = await Promise.all([
        api('POST', `/v1/notes/${noteId}/transcription/edits`, {
          body: { edits: [{ op: 'replace_text', segment: 0, text: `Person ${round}.` }] },
          headers: { 'if-match': current },
        }),
        call(writer, 'editTranscription', {
          note_id: noteId,
          edits: [{ op: 'replace_text', segment: 0, text: `Agent ${round}.` }],
          if_match: current,
        }),
      ]);
      expect([person.status === 200, !agent.isError].filter(Boolean)).toHaveLength(1);
      const now = await api<{ conversation_segments: { text: string }[] }>(
        'GET',
        `/v1/notes/${noteId}/transcription`,
      );
      expect(now.body.conversation_segments[0]?.text).toBe(
        person.status === 200 ? `Person ${round}.` : `Agent ${round}.`,
      );
    }
    const back = await call(writer, 'undoTranscriptionEdit', {
      note_id: noteId,
      to: 'original',
      if_match: (await api('GET', `/v1/notes/${noteId}/transcription`)).headers.get('etag'),
    });
    expect(back.structuredContent).toMatchObject({ revision: 0 });
  });

  it('lets a client that reads only structuredContent edit conditionally: the etag is there, and a stale one gets Error 412', async () => {
    const { api } = service;
    const writer = await connect(tokens.mint(accountId, ['notes:read', 'notes:write']));
    // What a host that hands the model structured results only sees of each call.
    const structured = async (name: string, args: Record<string, unknown>) => {
      const result = await call(writer, name, args);
      return { isError: result.isError === true, content: result.structuredContent ?? {} };
    };

    const note = await structured('getNote', { note_id: noteId });
    expect(note.content.etag).toBe((await api('GET', `/v1/notes/${noteId}`)).headers.get('etag'));
    const renamed = await structured('updateNote', {
      note_id: noteId,
      title: 'Renamed from structuredContent',
      if_match: note.content.etag,
    });
    expect(renamed).toMatchObject({ isError: false, content: { title: 'Renamed from structuredContent' } });
    expect(renamed.content.etag).toBe((await api('GET', `/v1/notes/${noteId}`)).headers.get('etag'));
    const lostNote = await structured('updateNote', {
      note_id: noteId,
      title: 'Lost',
      if_match: note.content.etag,
    });
    expect(lostNote).toMatchObject({ isError: true, content: { status_code: 412 } });

    const transcriptUrl = `/v1/notes/${noteId}/transcription`;
    const read = await structured('getTranscription', { note_id: noteId });
    expect(read.content.etag).toBe((await api('GET', transcriptUrl)).headers.get('etag'));
    const edit = (ifMatch: unknown, text: string) =>
      structured('editTranscription', {
        note_id: noteId,
        if_match: ifMatch,
        edits: [{ op: 'replace_text', segment: 0, text }],
      });
    const corrected = await edit(read.content.etag, 'Corrected from structuredContent.');
    expect(corrected.isError).toBe(false);
    expect(corrected.content.etag).toBe((await api('GET', transcriptUrl)).headers.get('etag'));
    const lost = await edit(read.content.etag, 'Lost correction.');
    expect(lost).toMatchObject({ isError: true, content: { status_code: 412 } });
    const segmentText = async () =>
      (await api<{ conversation_segments: { text: string }[] }>('GET', transcriptUrl)).body
        .conversation_segments[0]?.text;
    expect(await segmentText()).toBe('Corrected from structuredContent.');

    const undone = await structured('undoTranscriptionEdit', {
      note_id: noteId,
      if_match: corrected.content.etag,
    });
    expect(undone.isError).toBe(false);
    expect(undone.content.etag).toBe((await api('GET', transcriptUrl)).headers.get('etag'));
    expect(await segmentText()).not.toBe('Corrected from structuredContent.');
  });

  it("shows each segment's speaker_label beside its speaker; a rename through updateNote leaves the transcript's etag good for a correction", async () => {
    const writer = await connect(tokens.mint(accountId, ['notes:read', 'notes:write']));
    const etagIn = (result: CallToolResult) =>
      /etag of this transcript: ("[^"]+")/.exec(texts(result).join('\n'))?.[1];
    type Segment = { speaker: string; speaker_label: string; text: string };
    const read = await call(writer, 'getTranscription', { note_id: noteId });
    const [first] = (read.structuredContent?.conversation_segments ?? []) as Segment[];
    expect(first?.speaker_label).toMatch(/^Speaker [0-9]+$/);
    const label = first?.speaker_label as string;

    const renamed = await call(writer, 'updateNote', { note_id: noteId, speaker_names: { [label]: 'Ada' } });
    expect(renamed.isError).toBeFalsy();
    const corrected = await call(writer, 'editTranscription', {
      note_id: noteId,
      edits: [{ op: 'replace_text', segment: 0, text: 'Named by the agent.' }],
      if_match: etagIn(read),
    });
    expect(corrected.isError, texts(corrected).join('\n')).toBeFalsy();
    const [now] = (corrected.structuredContent?.conversation_segments ?? []) as Segment[];
    expect(now).toMatchObject({ speaker: 'Ada', speaker_label: label, text: 'Named by the agent.' });
    const unnamed = await call(writer, 'updateNote', { note_id: noteId, speaker_names: { [label]: null } });
    expect(unnamed.isError).toBeFalsy();
    // Undo with the correction's etag, read before that rename: the recogniser's words are back.
    const undone = await call(writer, 'undoTranscriptionEdit', {
      note_id: noteId,
      if_match: etagIn(corrected),
    });
    expect(undone.isError, texts(undone).join('\n')).toBeFalsy();
    const [back] = (undone.structuredContent?.conversation_segments ?? []) as Segment[];
    expect(back).toMatchObject({ speaker: label, speaker_label: label, text: first?.text });
  });

  it('deletes a note only when confirm_note_id repeats its ID exactly, case included', async () => {
    const doomed = randomUUID();
    const submitted = await service.api('POST', `/v1/notes/${doomed}/transcription`, {
      body: { title: 'To delete', content_type: 'audio/wav', size_bytes: 1000 },
    });
    expect(submitted.status).toBe(202);
    const client = await connect(tokens.mint(accountId, ['notes:read', 'notes:delete']));

    const mismatch = await call(client, 'deleteNote', { note_id: doomed, confirm_note_id: noteId });
    expect(mismatch.isError).toBe(true);
    expect(texts(mismatch)[0]).toMatch(/nothing was deleted/);
    expect((await call(client, 'getNote', { note_id: doomed })).isError).toBeFalsy();

    const caseVariant = await call(client, 'deleteNote', {
      note_id: doomed,
      confirm_note_id: doomed.toUpperCase(),
    });
    expect(caseVariant.isError).toBe(true);
    expect(texts(caseVariant)[0]).toMatch(/exactly: nothing was deleted/);
    expect((await call(client, 'getNote', { note_id: doomed })).isError).toBeFalsy();

    const upper = doomed.toUpperCase();
    const deleted = await call(client, 'deleteNote', { note_id: upper, confirm_note_id: upper });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toEqual({ note_id: doomed, deleted: 'note' });
    const gone = await call(client, 'getNote', { note_id: doomed });
    expect(gone.isError).toBe(true);
    expect(gone.structuredContent).toEqual({ status_code: 404, detail: `No note with ID ${doomed}` });
  });

  it('organises notes in collections under notes:write, scopes Ask to one, and refuses them to a read-only grant', async () => {
    const reader = tokens.mint(accountId, ['notes:read', 'notes:process']);
    const refused = await post(toolCall('createCollection', { name: 'Meetings' }), {
      authorization: `Bearer ${reader}`,
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(/insufficient_scope.*notes:write required/);

    const writer = await connect(tokens.mint(accountId, ['notes:read', 'notes:write', 'notes:process']));
    const created = await call(writer, 'createCollection', { name: 'Meetings' });
    expect(created.isError).toBeFalsy();
    const { collection_id } = created.structuredContent as { collection_id: string };
    const filed = await call(writer, 'addNoteToCollection', { collection_id, note_id: noteId });
    expect(filed.structuredContent).toEqual({
      note_id: noteId,
      collections: [{ collection_id, name: 'Meetings' }],
    });
    const duplicate = await call(writer, 'createCollection', { name: 'MEETINGS' });
    expect(duplicate.structuredContent).toMatchObject({ status_code: 409 });
    expect(texts(duplicate)[0]).toContain(collection_id);

    const readerClient = await connect(reader);
    const listed = await call(readerClient, 'listNotes', { collection_id });
    expect(
      (listed.structuredContent as { notes: { note_id: string }[] }).notes.map((n) => n.note_id),
    ).toEqual([noteId]);
    const asked = await call(readerClient, 'askWorkspace', {
      question: 'How many engineers will we hire?',
      collection_id,
    });
    expect((asked.structuredContent as { note_ids: string[] }).note_ids).toEqual([noteId]);
    const collections = await call(readerClient, 'listCollections');
    expect((collections.structuredContent as { collections: { name: string }[] }).collections).toContainEqual(
      expect.objectContaining({ collection_id, name: 'Meetings' }),
    );

    const stranger = await connect(
      tokens.mint(otherAccountId, ['notes:read', 'notes:write', 'notes:process']),
    );
    for (const [tool, args] of [
      ['updateCollection', { collection_id, name: 'Mine now' }],
      ['deleteCollection', { collection_id }],
      ['addNoteToCollection', { collection_id, note_id: noteId }],
      ['removeNoteFromCollection', { collection_id, note_id: noteId }],
      ['listNotes', { collection_id }],
      ['askWorkspace', { question: 'Who?', collection_id }],
    ] as const) {
      const result = await call(stranger, tool, args);
      expect(result.structuredContent, tool).toMatchObject({ status_code: 404 });
    }

    const removed = await call(writer, 'removeNoteFromCollection', { collection_id, note_id: noteId });
    expect(removed.structuredContent).toEqual({ note_id: noteId, collections: [] });
    const deleted = await call(writer, 'deleteCollection', { collection_id });
    expect(deleted.structuredContent).toEqual({ collection_id, deleted: 'collection' });
    expect((await call(writer, 'getNote', { note_id: noteId })).isError).toBeFalsy();
  });

  it("never shows one account's note to another account's grant (a 404 tool error)", async () => {
    const stranger = await connect(tokens.mint(otherAccountId, ['notes:read', 'notes:process']));
    const note = await call(stranger, 'getNote', { note_id: noteId });
    expect(note.isError).toBe(true);
    expect(note.structuredContent).toMatchObject({ status_code: 404 });
    expect(texts(note)[0]).toMatch(/^Error 404: No note with ID/);
    const list = await call(stranger, 'listNotes');
    expect((list.structuredContent as { notes: unknown[] }).notes).toEqual([]);
  });
});

describe('the MCP endpoint over raw HTTP', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };

  it('answers 401 with the protected resource metadata and default scopes without a token', async () => {
    const response = await post(initialize);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp", scope="notes:read notes:process"`,
    );
    expect(((await response.json()) as { detail: string }).detail).toMatch(/Missing access token/);
  });

  it("answers 401 invalid_token to the account's own svc_sk_ API key", async () => {
    const apiKey = (await import('node:fs/promises')).readFile(`${service.dataDir}/api-key`, 'utf8');
    const response = await post(initialize, { authorization: `Bearer ${(await apiKey).trim()}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", /);
  });

  it('answers 403 to a foreign Origin and 405 (Allow: POST) to GET', async () => {
    const token = tokens.mint(accountId, ['notes:read']);
    const foreign = await post(initialize, {
      authorization: `Bearer ${token}`,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    const same = await post(initialize, { authorization: `Bearer ${token}`, origin: baseUrl });
    expect(same.status).toBe(200);

    const get = await fetch(mcpUrl, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('serves Accept: application/json alone with JSON, and answers 406 to an Accept without JSON', async () => {
    const token = tokens.mint(accountId, ['notes:read']);
    const jsonOnly = await post(initialize, { authorization: `Bearer ${token}`, accept: 'application/json' });
    expect(jsonOnly.status).toBe(200);
    expect(jsonOnly.headers.get('content-type')).toMatch(/^application\/json/);
    expect(
      ((await jsonOnly.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
    ).toBe('notes');

    const streamOnly = await post(initialize, {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
    });
    expect(streamOnly.status).toBe(406);
    expect(((await streamOnly.json()) as { detail: string }).detail).toMatch(/application\/json only/);
  });

  it('serves 2026-07-28 through the Lambda handler too: server/discover and a tool call, JSON', async () => {
    const token = tokens.mint(accountId, ['notes:read']);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'lambda-2026', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const headers = (method: string, name?: string) => ({
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    });
    const discover = await post(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } },
      headers('server/discover'),
    );
    expect(discover.status).toBe(200);
    expect(discover.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await discover.json()) as { result: unknown }).result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
    });
    const note = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'getNote', arguments: { note_id: noteId }, _meta: meta },
      },
      headers('tools/call', 'getNote'),
    );
    expect(((await note.json()) as { result: unknown }).result).toMatchObject({
      resultType: 'complete',
      structuredContent: { note_id: noteId },
    });
  });
});

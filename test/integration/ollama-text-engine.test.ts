import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { chatCompletionsUrl } from '../../src/adapters/llm/openai-chat.ts';
import { OpenAiChatInsightsEngine } from '../../src/adapters/llm/openai-chat-insights.ts';
import { answerJsonSchema, artifactJsonSchemas, insightsJsonSchema } from '../../src/adapters/llm/schema.ts';
import { loadConfigFrom } from '../../src/config.ts';
import { syncNoteIndex } from '../../src/domain/note-index.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { buildTranscription } from '../../src/domain/transcript.ts';
import { ProviderMisconfiguredError } from '../../src/ports/generation-errors.ts';
import type { RecognizedWord } from '../../src/ports/speech-to-text.ts';
import { getAskServices } from '../../src/wiring/ask-services.ts';
import { getGenerationServices } from '../../src/wiring/generation-services.ts';
import { getServices } from '../../src/wiring/services.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { storeCompletedTranscription } from '../support/stored-notes.ts';
import { pollUntilDone } from '../support/transcribe.ts';

/**
 * The service with its text engine pointed at Ollama as compose.ollama.yaml and docs/self-hosting.md
 * set it (NOTES_TEXT_ENGINE=openai, NOTES_OPENAI_CHAT_BASE_URL=http://<host>:11434/v1,
 * NOTES_OPENAI_CHAT_MODEL=llama3.1:8b), against a stub on 127.0.0.1 that answers in the shapes of
 * Ollama's OpenAI-compatible API (openai/openai.go in ollama/ollama: `chat.completion` with
 * `system_fingerprint: "fp_ollama"`, errors as `{"error":{"message","type","param","code"}}`). The
 * whole local runtime runs in this process, so Insights, artifacts and Ask go through the adapters
 * the service wires from its configuration (generation-services.ts, ask-services.ts). Not a live
 * Ollama: none can be installed here.
 */
const MODEL = 'llama3.1:8b';

// ---------------------------------------------------------------------------------------------
// The stub: Ollama's /v1/chat/completions
// ---------------------------------------------------------------------------------------------

interface ChatMessage {
  role: string;
  content: string;
}
interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  temperature: number;
  response_format?: {
    type: string;
    json_schema?: { name: string; schema: Record<string, unknown>; strict: boolean };
  };
}
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: ChatRequest;
}

/** What the stub does with the next request; with none scripted, it answers the task well. */
type Behaviour =
  | { answer: 'valid' }
  | { content: string; finish_reason: 'stop' | 'length' }
  | { status: number; error: Record<string, unknown> }
  | { cutOff: true };

/** Ollama's error bodies (openai.NewError): message and type, `param` and `code` null. */
const ollamaError = (message: string, type = 'api_error') => ({ message, type, param: null, code: null });
const MODEL_NOT_PULLED: Behaviour = {
  status: 404,
  error: ollamaError(`model "${MODEL}" not found, try pulling it first`),
};
/** Newer Ollama types a 404 `not_found_error`. */
const MODEL_NOT_PULLED_NEWER: Behaviour = {
  status: 404,
  error: ollamaError(`model "${MODEL}" not found, try pulling it first`, 'not_found_error'),
};
const BUSY: Behaviour = {
  status: 503,
  error: ollamaError('server busy, please try again.  maximum pending requests exceeded'),
};
const RUNNER_DIED: Behaviour = {
  status: 500,
  error: ollamaError('llama runner process has terminated: signal: killed'),
};
const BAD_REQUEST: Behaviour = {
  status: 400,
  error: ollamaError('invalid message content type: <nil>', 'invalid_request_error'),
};

let stub: Server;
let stubUrl = '';
const received: Received[] = [];
let script: Behaviour[] = [];

function completion(content: string, finish_reason: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-123',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: MODEL,
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason }],
    usage: { prompt_tokens: 812, completion_tokens: 164, total_tokens: 976 },
  };
}

/** The task a request is for: the schema's name, or in JSON mode the schema in the system prompt. */
function taskOf(body: ChatRequest): string | undefined {
  const format = body.response_format;
  if (format?.type === 'json_schema') return format.json_schema?.name;
  const system = body.messages[0]?.content ?? '';
  if (format?.type !== 'json_object' || !system.includes('matches this JSON schema')) return undefined;
  if (system.includes('structured notes ("Insights")')) return 'insights';
  if (system.includes('"Epiphany"')) return 'epiphany';
  if (system.includes("answer a question about the user's notes")) return 'answer';
  return undefined;
}

/** `[start_ms] Speaker: text` lines of the transcript the model was shown. */
function transcriptLines(user: string): Array<{ start_ms: number; speaker: string; text: string }> {
  return [...user.matchAll(/^\[(\d+)\] ([^:\n]+): (.+)$/gm)].map((match) => ({
    start_ms: Number(match[1]),
    speaker: match[2] ?? '',
    text: match[3] ?? '',
  }));
}

/** What a well-behaved model answers: JSON for the schema, citing only what it was shown. */
function validContent(body: ChatRequest): string | undefined {
  const user = body.messages[1]?.content ?? '';
  const lines = transcriptLines(user);
  const first = lines[0];
  const last = lines.at(-1);
  switch (taskOf(body)) {
    case 'insights':
      if (!first || !last) return undefined;
      return JSON.stringify({
        summary: { text: 'The team sets the mobile launch date.', citations: [first.start_ms] },
        key_points: [{ text: 'An Android crash blocks the launch.', citations: [lines[1]?.start_ms] }],
        topics: [{ label: 'Mobile launch', citations: [first.start_ms] }],
        action_items: [
          {
            text: 'Fix the Android crash.',
            owner: lines[3]?.speaker ?? null,
            due_date: null,
            citations: [lines[3]?.start_ms],
          },
        ],
        decisions: [{ text: 'Launch on April seventh.', citations: [lines[2]?.start_ms] }],
        open_questions: [],
        chapters: [{ title: 'Launch plan', start_ms: first.start_ms, end_ms: last.start_ms }],
        speakers: [],
      });
    case 'epiphany': {
      const crash = lines[1];
      const launch = lines[2];
      if (!crash || !launch) return undefined;
      return JSON.stringify({
        ideas: [
          {
            title: 'The launch date rests on one bug fix',
            connection: 'The April date is set right after the crash is reported.',
            implication: 'A late fix moves the launch.',
            evidence: [
              { start_ms: crash.start_ms, quote: crash.text.split(' ').slice(0, 5).join(' ') },
              { start_ms: launch.start_ms, quote: launch.text.split(' ').slice(0, 6).join(' ') },
            ],
          },
        ],
      });
    }
    case 'answer': {
      const passage = /^\[(\S+) (\d+)-\d+\] /m.exec(user);
      if (!passage) return undefined;
      return JSON.stringify({
        answer: 'The app launches on April seventh, once the crash is fixed.',
        citations: [{ note_id: passage[1], start_ms: Number(passage[2]) }],
      });
    }
    default:
      return undefined;
  }
}

async function startOllamaStub(): Promise<void> {
  stub = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // Ollama's router (gin) answers an unknown path with a plain-text 404.
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const next = script.shift() ?? { answer: 'valid' };
      if ('error' in next) return json(next.status, { error: next.error });
      if ('content' in next) return json(200, completion(next.content, next.finish_reason));
      const content = validContent(body);
      if (content === undefined) return json(500, { error: ollamaError('the stub has no answer for this') });
      const text = JSON.stringify(completion(content, 'stop'));
      if ('cutOff' in next) {
        // The whole length announced, half of it sent, then the connection closed (the runner died).
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.write(text.slice(0, text.length / 2), () => res.destroy());
        return;
      }
      json(200, completion(content, 'stop'));
    });
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
}

// ---------------------------------------------------------------------------------------------
// The service, wired from its configuration
// ---------------------------------------------------------------------------------------------

let service: InProcessService;
let api: Api;
let accountId = '';

const SENTENCES: Array<[string, string]> = [
  ['Speaker 1', 'Welcome everyone, today we plan the mobile launch.'],
  ['Speaker 2', 'The payment screen still crashes on older Android phones.'],
  ['Speaker 1', 'Then we launch on April seventh once the crash is fixed.'],
  ['Speaker 2', 'I will fix the Android crash by Friday.'],
  ['Speaker 1', 'Who tells the marketing team about the date?'],
];

/** A note with a completed two-speaker transcript, written through the runtime's stores and indexed. */
async function transcribedNote(title = 'Mobile launch sync'): Promise<string> {
  const noteId = randomUUID();
  const services = getServices();
  const words: RecognizedWord[] = [];
  let at = 0;
  for (const [speaker, sentence] of SENTENCES) {
    for (const text of sentence.split(' ')) {
      words.push({ text, start_ms: at, end_ms: at + 350, speaker });
      at += 400;
    }
    at += 1200; // a pause: one segment per sentence
  }
  const transcription = buildTranscription(words, { duration_ms: at, engine: 'test', language: 'en-US' });
  const now = Date.now();
  await services.notes.createNoteIfAbsent({
    account_id: accountId,
    note_id: noteId,
    title,
    state: 'active',
    created_at: now,
    updated_at: now,
    trashed_at: null,
    audio: null,
  });
  await services.blobs.putJson(objectKeys.transcription(accountId, noteId), transcription);
  await storeCompletedTranscription(services, accountId, noteId, now);
  await syncNoteIndex(services, accountId, noteId);
  return noteId;
}

const poll = (path: string) => pollUntilDone(api, path, { intervalMs: 200, deadlineMs: 50_000 });

async function generateInsights(noteId: string) {
  const accepted = await api('POST', `/v1/notes/${noteId}/insights`);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  return (await poll(`/v1/notes/${noteId}/insights`)).final;
}

async function generateEpiphany(noteId: string) {
  const path = `/v1/notes/${noteId}/artifacts/epiphany`;
  const accepted = await api('POST', path, { body: { language: 'auto' } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  return (await poll(path)).final;
}

const ask = (question: string) =>
  api<{ answer: string; note_ids: string[]; citations: Array<{ note_id: string; start_ms: number }> }>(
    'POST',
    '/v1/ask',
    { body: { question } },
  );

/** Nothing was stored for the note's Insights, whole or half. */
async function expectNoInsightsStored(noteId: string): Promise<void> {
  expect(await getServices().blobs.getJson(objectKeys.insights(accountId, noteId))).toBeNull();
  expect((await api('GET', `/v1/notes/${noteId}`)).body.insights).toBeNull();
}

beforeAll(async () => {
  await startOllamaStub();
  vi.stubEnv('NOTES_TEXT_ENGINE', 'openai');
  vi.stubEnv('NOTES_OPENAI_CHAT_BASE_URL', `${stubUrl}/v1`);
  vi.stubEnv('NOTES_OPENAI_CHAT_MODEL', MODEL);
  service = await startInProcess({ workersInProcess: true });
  ({ api } = service);
  accountId = String((await api('GET', '/v1/account')).body.account_id);
});
afterAll(async () => {
  await service?.stop();
  vi.unstubAllEnvs();
  await new Promise<void>((resolve) => {
    stub?.closeAllConnections();
    stub ? stub.close(() => resolve()) : resolve();
  });
});
beforeEach(() => {
  received.length = 0;
  script = [];
});

// ---------------------------------------------------------------------------------------------

describe('the text engine pointed at Ollama, as compose.ollama.yaml and docs/self-hosting.md configure it', () => {
  it('wires the OpenAI-compatible chat adapters for Insights, artifacts and Ask with the configured model', () => {
    const generation = getGenerationServices();
    expect(generation.insights.name).toBe(`openai-compatible:${MODEL}`);
    expect(generation.artifacts.name).toBe(`openai-compatible:${MODEL}`);
    expect(getAskServices().answers.name).toBe(`openai-compatible:${MODEL}`);
  });

  it('writes Insights from the title and transcript, asking Ollama for the Insights JSON schema', async () => {
    const noteId = await transcribedNote();
    const final = await generateInsights(noteId);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(final.body).toMatchObject({
      note_id: noteId,
      engine: `openai-compatible:${MODEL}`,
      summary: { text: 'The team sets the mobile launch date.' },
      decisions: [{ text: 'Launch on April seventh.' }],
      action_items: [{ text: 'Fix the Android crash.', owner: 'Speaker 2', due_date: null }],
    });

    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call?.method).toBe('POST');
    expect(call?.url).toBe('/v1/chat/completions');
    expect(call?.headers['content-type']).toBe('application/json');
    // Ollama needs no key: none is configured, so none is sent.
    expect(call?.headers.authorization).toBeUndefined();
    expect(call?.body).toMatchObject({ model: MODEL, stream: false, temperature: 0 });
    expect(call?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'insights', schema: insightsJsonSchema, strict: false },
    });
    expect(call?.body.messages.map((message) => message.role)).toEqual(['system', 'user']);
    const user = call?.body.messages[1]?.content ?? '';
    expect(user.startsWith('Title: "Mobile launch sync"\nTranscript:\n[0] Speaker 1: Welcome everyone')).toBe(
      true,
    );
    expect(transcriptLines(user).map((line) => line.text)).toEqual(SENTENCES.map(([, text]) => text));
  });

  it('writes an artifact from the title and transcript alone (not the Insights), with verbatim evidence', async () => {
    const noteId = await transcribedNote();
    expect((await generateInsights(noteId)).status).toBe(200);
    received.length = 0;

    const final = await generateEpiphany(noteId);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(final.body).toMatchObject({ kind: 'epiphany', engine: `openai-compatible:${MODEL}` });
    const { ideas } = final.body.content as { ideas: Array<{ evidence: Array<{ quote: string }> }> };
    expect(ideas[0]?.evidence.map((item) => item.quote)).toEqual([
      'The payment screen still crashes',
      'Then we launch on April seventh',
    ]);

    expect(received).toHaveLength(1);
    const body = received[0]?.body;
    expect(body?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'epiphany', schema: artifactJsonSchemas.epiphany, strict: false },
    });
    const user = body?.messages[1]?.content ?? '';
    expect(transcriptLines(user)).toHaveLength(SENTENCES.length);
    expect(user).not.toContain('The team sets the mobile launch date.');
  });

  it("answers Ask from the question and the passages retrieved from the user's notes, citing them", async () => {
    const noteId = await transcribedNote('Launch planning');
    const response = await ask('When is the mobile launch?');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.answer).toBe('The app launches on April seventh, once the crash is fixed.');
    expect(response.body.citations).toHaveLength(1);
    expect(response.body.note_ids).toContain(response.body.citations[0]?.note_id);

    expect(received).toHaveLength(1);
    const body = received[0]?.body;
    expect(body?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: answerJsonSchema, strict: false },
    });
    const user = body?.messages[1]?.content ?? '';
    expect(user).toMatch(/^Passages:\n\[\S+ \d+-\d+\] "[^"]+": Speaker \d: /);
    expect(user).toContain(`[${noteId} `);
    expect(user.endsWith('\n\nQuestion: "When is the mobile launch?"')).toBe(true);
  });
});

describe('Ollama without the model pulled', () => {
  it.each([
    ['type api_error', MODEL_NOT_PULLED],
    ['type not_found_error (newer Ollama)', MODEL_NOT_PULLED_NEWER],
  ])(
    'fails the Insights job at once with a detail that says to ollama pull the model (404, %s)',
    async (_type, notPulled) => {
      const noteId = await transcribedNote();
      script = [notPulled];
      const final = await generateInsights(noteId);
      expect(final.status).toBe(409);
      expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
      expect(final.body.detail).toBe(
        `The text engine is not configured correctly: the chat completions server at ${stubUrl} has no model ${MODEL} (it answered 404). ` +
          `Pull the model on that server (Ollama: ollama pull ${MODEL}) or set NOTES_OPENAI_CHAT_MODEL to a model it serves. ` +
          'Generate the Insights again to retry.',
      );
      // Permanent: retrying cannot pull the model, so it is asked once.
      expect(received).toHaveLength(1);
      await expectNoInsightsStored(noteId);
    },
  );

  it('fails an artifact job with the same detail', async () => {
    const noteId = await transcribedNote();
    script = [MODEL_NOT_PULLED];
    const final = await generateEpiphany(noteId);
    expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
    expect(String(final.body.detail)).toMatch(
      /has no model llama3\.1:8b \(it answered 404\)\. Pull the model on that server \(Ollama: ollama pull llama3\.1:8b\)/,
    );
    expect(received).toHaveLength(1);
  });

  it('answers Ask with 503 and the same words, since only the operator can fix it', async () => {
    await transcribedNote();
    script = [MODEL_NOT_PULLED];
    const response = await ask('When is the mobile launch?');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      detail: `The text engine is not configured correctly: the chat completions server at ${stubUrl} has no model ${MODEL} (it answered 404). Pull the model on that server (Ollama: ollama pull ${MODEL}) or set NOTES_OPENAI_CHAT_MODEL to a model it serves`,
    });
    expect(received).toHaveLength(1);
  });
});

describe('Ollama at a wrong address', () => {
  it('fails with a detail naming NOTES_OPENAI_CHAT_BASE_URL when nothing answers chat completions there', async () => {
    // The same adapter the service wires, given a base URL under Ollama's own API (/api) by mistake.
    const misplaced = new OpenAiChatInsightsEngine({ baseUrl: `${stubUrl}/api`, model: MODEL });
    const transcription = buildTranscription(
      [{ text: 'Hello', start_ms: 0, end_ms: 300, speaker: 'Speaker 1' }],
      { duration_ms: 400, engine: 'test', language: 'en-US' },
    );
    const failure = misplaced.generateInsights({ transcription, title: 'x', reference_time: 0 });
    await expect(failure).rejects.toBeInstanceOf(ProviderMisconfiguredError);
    await expect(failure).rejects.toThrow(
      `The text engine is not configured correctly: the chat completions server at ${stubUrl} answered 404 for /api/v1/chat/completions. Check NOTES_OPENAI_CHAT_BASE_URL`,
    );
    expect(received).toHaveLength(0);
  });
});

describe('Ollama errors and broken answers', () => {
  it('fails a job on a 400 at once, without retrying a request that cannot succeed', async () => {
    const noteId = await transcribedNote();
    script = [BAD_REQUEST];
    const final = await generateInsights(noteId);
    expect(final.body).toMatchObject({ status: 'failed' });
    expect(final.body.detail).toBe(
      `The chat completions server at ${stubUrl} answered 400 (invalid_request_error). Generate the Insights again to retry.`,
    );
    expect(received).toHaveLength(1);
  });

  it('retries a busy server (503) and a crashed runner (500) as transient, then saves the Insights', async () => {
    const noteId = await transcribedNote();
    script = [BUSY, RUNNER_DIED];
    const final = await generateInsights(noteId);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(received).toHaveLength(3);
  });

  it('gives up after bounded retries when the server stays unavailable: the job fails, nothing is saved', async () => {
    const noteId = await transcribedNote();
    script = [BUSY, BUSY, BUSY, BUSY];
    const final = await generateInsights(noteId);
    expect(final.body).toMatchObject({ status: 'failed' });
    // The generation worker's engine: maxRetries 3 (src/adapters/llm/openai-chat.ts), so four requests.
    expect(final.body.detail).toBe(
      `The chat completions server at ${stubUrl} answered 503 (api_error) (4 attempts). Generate the Insights again to retry.`,
    );
    expect(received).toHaveLength(4);
    await expectNoInsightsStored(noteId);
  });

  it('retries Ask on a 503 within its time limit, and answers 502 when the server stays busy', async () => {
    await transcribedNote();
    script = [BUSY];
    expect((await ask('When is the mobile launch?')).status).toBe(200);
    expect(received).toHaveLength(2);

    received.length = 0;
    script = [BUSY, BUSY, BUSY];
    const response = await ask('When is the mobile launch?');
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ detail: 'An answer could not be generated; retry later.' });
    // Ask's tuning: two retries (src/wiring/ask-services.ts).
    expect(received).toHaveLength(3);
  });

  it('retries an answer whose body was cut off mid-stream, then saves the whole answer', async () => {
    const noteId = await transcribedNote();
    script = [{ cutOff: true }];
    const final = await generateInsights(noteId);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(final.body).toMatchObject({ summary: { text: 'The team sets the mobile launch date.' } });
    expect(received).toHaveLength(2);
  });

  it('refuses JSON cut off at the length limit and never saves half of it', async () => {
    const noteId = await transcribedNote();
    const truncated = '{"summary": {"text": "The team sets the mobile launch da';
    script = [
      { content: truncated, finish_reason: 'length' },
      { content: truncated, finish_reason: 'length' },
    ];
    const final = await generateInsights(noteId);
    expect(final.status).toBe(409);
    expect(final.body).toMatchObject({ status: 'failed' });
    expect(final.body.detail).toBe(
      `openai-compatible:${MODEL} gave no valid Insights in two answers: The answer was cut off (finish_reason length): ` +
        "the server's context window or output limit is too small for it (Ollama: raise OLLAMA_CONTEXT_LENGTH). " +
        'Generate the Insights again to retry.',
    );
    // Asked once more, with what was wrong, before giving up.
    expect(received).toHaveLength(2);
    expect(received[1]?.body.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(received[1]?.body.messages[3]?.content).toMatch(
      /^The answer was cut off \(finish_reason length\)/,
    );
    await expectNoInsightsStored(noteId);
  });

  it('refuses JSON that does not match the schema, then takes the corrected answer when asked again', async () => {
    const noteId = await transcribedNote();
    script = [{ content: '{"summary": "A meeting.", "key_points": "none"}', finish_reason: 'stop' }];
    const final = await generateInsights(noteId);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(final.body).toMatchObject({ summary: { text: 'The team sets the mobile launch date.' } });
    expect(received).toHaveLength(2);
    expect(received[1]?.body.messages[3]?.content).toMatch(/does not match the Insights schema/);
  });

  it('answers Ask with 502 when both answers are cut off at the length limit', async () => {
    await transcribedNote();
    const truncated = '{"answer": "The app launches on Ap';
    script = [
      { content: truncated, finish_reason: 'length' },
      { content: truncated, finish_reason: 'length' },
    ];
    const response = await ask('When is the mobile launch?');
    expect(response.status).toBe(502);
    expect(received).toHaveLength(2);
  });

  // Last: a refused json_schema switches this engine to JSON mode for the rest of the process.
  it('falls back to JSON mode (json_object, the schema in the system prompt) when json_schema is refused', async () => {
    const noteId = await transcribedNote();
    script = [
      {
        status: 400,
        error: ollamaError('response_format type json_schema is not supported', 'invalid_request_error'),
      },
    ];
    const final = await generateInsights(noteId);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(received.map((call) => call.body.response_format?.type)).toEqual(['json_schema', 'json_object']);
    expect(received[1]?.body.messages[0]?.content).toContain(
      `Answer with one JSON object that matches this JSON schema:\n${JSON.stringify(insightsJsonSchema)}`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// compose.ollama.yaml
// ---------------------------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  environment?: Record<string, string | number>;
  volumes?: string[];
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string }>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const composeFile = (name: string) =>
  parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8')) as ComposeFile;

/** Compose's `${NAME:-default}` and `${NAME}`, with nothing set (what a plain `up` uses). */
function interpolated(value: string | number): string {
  return String(value).replace(
    /\$\{(\w+)(?::-([^}]*))?\}/g,
    (_all, _name, fallback?: string) => fallback ?? '',
  );
}

describe('compose.ollama.yaml', () => {
  const compose = composeFile('compose.ollama.yaml');

  it('adds an ollama service with its models in a named volume, a health check and a raised context', () => {
    const ollama = compose.services.ollama;
    expect(ollama?.image).toBe('ollama/ollama');
    expect(ollama?.volumes).toEqual(['ollama-models:/root/.ollama']);
    expect(compose.volumes).toHaveProperty('ollama-models');
    expect(ollama?.healthcheck?.test).toEqual(['CMD', 'ollama', 'list']);
    expect(Number(ollama?.environment?.OLLAMA_CONTEXT_LENGTH)).toBeGreaterThanOrEqual(16384);
  });

  it('points the notes service of compose.yaml at it, with settings the configuration knows', () => {
    expect(composeFile('compose.yaml').services).toHaveProperty('notes');
    const notes = compose.services.notes;
    expect(notes?.depends_on).toEqual({ ollama: { condition: 'service_healthy' } });
    const environment = Object.fromEntries(
      Object.entries(notes?.environment ?? {}).map(([name, value]) => [name, interpolated(value)]),
    );
    expect(environment).toEqual({
      NOTES_TEXT_ENGINE: 'openai',
      NOTES_OPENAI_CHAT_BASE_URL: 'http://ollama:11434/v1',
      NOTES_OPENAI_CHAT_MODEL: MODEL,
    });
    // The configuration keeps only the variables its schema names, checked: each must come back as set.
    const config = loadConfigFrom({
      NOTES_TABLE_NAME: 'notes',
      NOTES_BUCKET_NAME: 'notes-data',
      NOTES_TRANSCRIPTION_QUEUE_URL: 'http://127.0.0.1:1/transcription',
      NOTES_GENERATION_QUEUE_URL: 'http://127.0.0.1:1/generation',
      ...environment,
    }) as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(environment)) expect(config[name], name).toBe(value);
    expect(chatCompletionsUrl(environment.NOTES_OPENAI_CHAT_BASE_URL ?? '').href).toBe(
      'http://ollama:11434/v1/chat/completions',
    );
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type OpenAiCompatibleOptions,
  OpenAiCompatibleSpeechToText,
  OpenAiConfigurationError,
} from '../../src/adapters/openai/openai-speech-to-text.ts';
import { UnreadableAudioError } from '../../src/domain/errors.ts';
import type { RecognitionProgress } from '../../src/ports/speech-to-text.ts';
import { waitUntil } from '../support/wait.ts';

const API_KEY = 'sk-test-0123456789abcdefSECRET';

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/openai/${name}`, import.meta.url), 'utf8');
}

/** What the fake server saw of one request, after parsing the multipart body with the platform's parser. */
interface Received {
  method: string;
  path: string;
  authorization: string | undefined;
  contentLength: number;
  bodyLength: number;
  fields: Record<string, string[]>;
  file: { name: string; type: string; size: number; sha256: string } | undefined;
}

type Reply =
  | { status: number; body?: string; headers?: Record<string, string> }
  /** Close the connection without answering (a network failure). */
  | 'drop'
  /** Never answer (for the timeout). */
  | 'hang';

/** A local stand-in for an OpenAI-compatible server; answers its scripted replies in order, the last repeats. */
class FakeServer {
  readonly received: Received[] = [];
  private replies: Reply[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Connections open now: 0 once the adapter has hung up. */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.server?.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  answer(...replies: Reply[]): void {
    this.replies = replies;
    this.received.length = 0;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    this.received.push(await parse(request, body));
    const reply = this.replies[Math.min(this.received.length - 1, this.replies.length - 1)] ?? 'drop';
    if (reply === 'hang') return;
    if (reply === 'drop') {
      request.socket.destroy();
      return;
    }
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(reply.body ?? '');
  }
}

async function parse(request: IncomingMessage, body: Buffer): Promise<Received> {
  const form = await new Response(body, {
    headers: { 'content-type': request.headers['content-type'] ?? '' },
  }).formData();
  const fields: Record<string, string[]> = {};
  let file: Received['file'];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      fields[name] = [...(fields[name] ?? []), value];
    } else {
      const bytes = Buffer.from(await value.arrayBuffer());
      file = {
        name: value.name,
        type: value.type,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
    }
  }
  return {
    method: request.method ?? '',
    path: request.url ?? '',
    authorization: request.headers.authorization,
    contentLength: Number(request.headers['content-length']),
    bodyLength: body.length,
    fields,
    file,
  };
}

const server = new FakeServer();
let workDir: string;
/** Named like the worker names it: no extension, so the adapter has to tell the format from the bytes. */
let audioPath: string;
let audioSha256: string;

beforeAll(async () => {
  await server.start();
  workDir = await mkdtemp(join(tmpdir(), 'openai-adapter-'));
  audioPath = join(workDir, 'audio');
  // A WAV header followed by noise: enough for the format sniffing, and any bytes do for a fake server.
  const header = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt ')]);
  const audio = Buffer.concat([header, randomBytes(6 * 1024)]);
  await writeFile(audioPath, audio);
  audioSha256 = createHash('sha256').update(audio).digest('hex');
});

afterAll(async () => {
  await server.stop();
  await rm(workDir, { recursive: true, force: true });
});

afterEach(() => server.answer());

function engine(options: Partial<OpenAiCompatibleOptions> = {}) {
  return new OpenAiCompatibleSpeechToText({ baseUrl: server.url, retryBaseDelayMs: 5, ...options });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error('expected the transcription to fail');
  return outcome;
}

describe('OpenAiCompatibleSpeechToText against a local OpenAI-compatible server', () => {
  it('uploads the recording as multipart with the documented fields and maps words to ms', async () => {
    server.answer({ status: 200, body: fixture('verbose-json-words.json') });
    const progress: RecognitionProgress[] = [];
    const result = await engine({ apiKey: API_KEY, language: 'en' }).transcribe(
      audioPath,
      (report) => void progress.push(report),
    );

    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/audio/transcriptions',
      authorization: `Bearer ${API_KEY}`,
      fields: {
        model: ['whisper-1'],
        response_format: ['verbose_json'],
        'timestamp_granularities[]': ['word', 'segment'],
        language: ['en'],
      },
      file: { name: 'audio.wav', type: 'audio/wav', sha256: audioSha256 },
    });
    expect(request?.contentLength).toBe(request?.bodyLength);

    expect(result.duration_ms).toBe(4870);
    expect(result.words.map((word) => word.text)).toEqual([
      'Buy',
      'milk',
      'and',
      'eggs',
      'on',
      'the',
      'way',
      'home',
      'please',
    ]);
    // OpenAI's words carry no probability: each counts with its segment's exp(avg_logprob -0.286).
    expect(result.words[1]).toEqual({ text: 'milk', start_ms: 380, end_ms: 720, span_confidence: 0.751 });
    expect(result.words.at(-1)).toEqual({
      text: 'please',
      start_ms: 2980,
      end_ms: 3480,
      span_confidence: 0.751,
    });

    const stages = progress.map((report) => report.stage).filter((stage, i, all) => stage !== all[i - 1]);
    expect(stages).toEqual(['uploading', 'recognizing']);
  });

  it('spreads segment text evenly over each segment when the server sends no words (speaches)', async () => {
    server.answer({ status: 200, body: fixture('segments-only.json') });
    const result = await engine().transcribe(audioPath);

    expect(server.received[0]?.authorization).toBeUndefined();
    expect(result.duration_ms).toBe(6540);
    // Each segment's exp(avg_logprob): -0.219 -> 0.804, -0.313 -> 0.732.
    expect(result.words.slice(0, 4)).toEqual([
      { text: 'Call', start_ms: 0, end_ms: 500, span_confidence: 0.804 },
      { text: 'the', start_ms: 500, end_ms: 1000, span_confidence: 0.804 },
      { text: 'dentist', start_ms: 1000, end_ms: 1500, span_confidence: 0.804 },
      { text: 'tomorrow.', start_ms: 1500, end_ms: 2000, span_confidence: 0.804 },
    ]);
    expect(result.words[4]).toEqual({ text: 'Ask', start_ms: 2500, end_ms: 3100, span_confidence: 0.732 });
    expect(result.words.at(-1)).toEqual({
      text: 'slot.',
      start_ms: 4900,
      end_ms: 5500,
      span_confidence: 0.732,
    });
  });

  it("glues whisper.cpp's per-segment tokens back into words, on its /inference path", async () => {
    server.answer({ status: 200, body: fixture('whisper-cpp-inference.json') });
    const result = await engine({ path: '/inference' }).transcribe(audioPath);

    expect(server.received[0]?.path).toBe('/inference');
    // A glued word's confidence is the mean of its tokens' probabilities (0.81, 0.93; 0.97, 0.88).
    expect(result).toEqual({
      words: [
        { text: 'Transcribed', start_ms: 0, end_ms: 960, confidence: 0.87, span_confidence: 0.887 },
        { text: 'locally.', start_ms: 1100, end_ms: 2000, confidence: 0.925, span_confidence: 0.887 },
      ],
      duration_ms: 3000,
    });
  });

  it("takes faster-whisper's word probabilities as confidences and drops a segment Whisper's own rule calls silence", async () => {
    server.answer({ status: 200, body: fixture('faster-whisper-word-probabilities.json') });
    const result = await engine().transcribe(audioPath);

    // "Thanks for watching!" has no_speech_prob 0.77 and avg_logprob -1.09: invented over silence.
    expect(result.words.map((word) => word.text)).toEqual([
      'The',
      'grant',
      'was',
      'approved',
      'on',
      'Monday.',
    ]);
    expect(result.words[1]).toEqual({
      text: 'grant',
      start_ms: 220,
      end_ms: 610,
      confidence: 0.443,
      span_confidence: 0.833,
    });
    expect(result.notice).toBeUndefined();
  });

  it("answers no words and a no_speech notice when every segment is silence by Whisper's rule (music)", async () => {
    server.answer({ status: 200, body: fixture('music-no-speech.json') });
    const result = await engine().transcribe(audioPath);
    expect(result).toEqual({ words: [], duration_ms: 12_000, notice: 'no_speech' });
  });

  it('accepts a base URL that already ends in /v1 (the OpenAI SDK convention)', async () => {
    server.answer({ status: 200, body: fixture('verbose-json-words.json') });
    await engine({ baseUrl: `${server.url}/v1/` }).transcribe(audioPath);
    expect(server.received[0]?.path).toBe('/v1/audio/transcriptions');
  });

  it('streams a multi-megabyte recording intact', async () => {
    const bigPath = join(workDir, 'big');
    const big = Buffer.concat([Buffer.from('ID3'), randomBytes(3 * 1024 ** 2)]);
    await writeFile(bigPath, big);
    server.answer({ status: 200, body: fixture('verbose-json-words.json') });
    await engine().transcribe(bigPath);
    expect(server.received[0]?.file).toEqual({
      name: 'audio.mp3',
      type: 'audio/mpeg',
      size: big.length,
      sha256: createHash('sha256').update(big).digest('hex'),
    });
  });

  it('turns a 400 into UnreadableAudioError with the server message, without retrying', async () => {
    server.answer({ status: 400, body: fixture('error-400.json') });
    const error = await failure(engine().transcribe(audioPath));
    expect(error).toBeInstanceOf(UnreadableAudioError);
    expect(error.message).toContain('The audio file could not be decoded or its format is not supported.');
    expect(server.received).toHaveLength(1);
  });

  it('treats a 400 that blames a request field other than the file as configuration, not bad audio', async () => {
    const body = {
      error: { message: "Invalid model 'whisper-9'", type: 'invalid_request_error', param: 'model' },
    };
    server.answer({ status: 400, body: JSON.stringify(body) });
    const error = await failure(engine({ model: 'whisper-9' }).transcribe(audioPath));
    expect(error).toBeInstanceOf(OpenAiConfigurationError);
    expect(error).not.toBeInstanceOf(UnreadableAudioError);
    expect(server.received).toHaveLength(1);
  });

  it('waits as long as Retry-After asks after a 429, then returns the one result', async () => {
    server.answer(
      { status: 429, body: '{"error":{"message":"Rate limit reached"}}', headers: { 'retry-after': '1' } },
      { status: 200, body: fixture('verbose-json-words.json') },
    );
    const started = Date.now();
    const result = await engine().transcribe(audioPath);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.received).toHaveLength(2);
    expect(server.received[1]?.file?.sha256).toBe(audioSha256);
    expect(result.words).toHaveLength(9);
  });

  it('retries a dropped connection', async () => {
    server.answer('drop', { status: 200, body: fixture('segments-only.json') });
    const result = await engine().transcribe(audioPath);
    expect(server.received).toHaveLength(2);
    expect(result.duration_ms).toBe(6540);
  });

  it('gives up on a persistent 503 after maxRetries + 1 attempts with a plain, transient Error', async () => {
    server.answer({ status: 503, body: '{"error":"model is loading"}' });
    const error = await failure(engine({ maxRetries: 2 }).transcribe(audioPath));
    expect(server.received).toHaveLength(3);
    expect(error).not.toBeInstanceOf(UnreadableAudioError);
    expect(error).not.toBeInstanceOf(OpenAiConfigurationError);
    expect(error.message).toMatch(/HTTP 503: model is loading \(after 3 attempts\)/);
  });

  it('reports a 401 as a configuration error at once', async () => {
    server.answer({
      status: 401,
      body: '{"error":{"message":"Invalid authentication","type":"invalid_request_error"}}',
    });
    const error = await failure(engine({ apiKey: API_KEY }).transcribe(audioPath));
    expect(error).toBeInstanceOf(OpenAiConfigurationError);
    expect(error.message).toMatch(/refused the credentials \(HTTP 401: Invalid authentication\)/);
    expect(server.received).toHaveLength(1);
  });

  it('gives up when one attempt takes longer than timeoutMs', async () => {
    server.answer('hang');
    const error = await failure(engine({ timeoutMs: 300, maxRetries: 0 }).transcribe(audioPath));
    expect(error.message).toMatch(/could not be reached: no answer within/);
  });

  it('aborted while the server recognises, it hangs up at once and rejects with AbortError', async () => {
    server.answer('hang');
    const controller = new AbortController();
    const work = engine().transcribe(audioPath, undefined, {}, controller.signal);
    work.catch(() => {});
    await waitUntil(() => server.received.length === 1, 'the request');
    controller.abort();
    const error = await failure(work);
    expect(error.name).toBe('AbortError');
    await waitUntil(async () => (await server.openConnections()) === 0, 'the connection to close');
  });

  it('aborted while waiting to retry, it stops waiting and sends no further request', async () => {
    server.answer({ status: 503, body: '{"error":"busy"}', headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    const work = engine({ maxRetries: 3 }).transcribe(audioPath, undefined, {}, controller.signal);
    work.catch(() => {});
    await waitUntil(() => server.received.length === 1, 'the request');
    controller.abort();
    const error = await failure(work); // well before the 30 s the server asked for
    expect(error.name).toBe('AbortError');
    expect(server.received).toHaveLength(1);
  });

  it('never puts the API key in an error message, even when the server quotes it back', async () => {
    const masked = `${API_KEY.slice(0, 6)}***${API_KEY.slice(-4)}`;
    for (const status of [400, 401, 403, 422, 503]) {
      const message = `Incorrect API key provided: ${API_KEY} (${masked})`;
      server.answer({ status, body: JSON.stringify({ error: { message, type: 'invalid_request_error' } }) });
      const error = await failure(engine({ apiKey: API_KEY, maxRetries: 1 }).transcribe(audioPath));
      const shown = `${String(error)} ${error.stack ?? ''}`;
      expect(shown).not.toContain(API_KEY);
      expect(shown).not.toContain(masked);
      expect(shown).toContain('[redacted]');
    }
  });
});

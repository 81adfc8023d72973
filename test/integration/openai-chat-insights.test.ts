import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiChatInsightsEngine } from '../../src/adapters/llm/openai-chat-insights.ts';
import type { Transcription } from '../../src/domain/transcript.ts';
import { GenerationFailedError, ProviderThrottledError } from '../../src/ports/generation-errors.ts';
import type { InsightsRequest } from '../../src/ports/insights-engine.ts';
import {
  type ReceivedRequest,
  type ScriptedReply,
  type ScriptedServer,
  startScriptedServer,
} from '../support/scripted-server.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/llm/${name}`, import.meta.url), 'utf8');
const transcription = JSON.parse(fixture('transcript.json')) as Transcription;
const completion = fixture('chat-completion.json');
const request: InsightsRequest = {
  transcription,
  title: 'Mobile launch sync',
  reference_time: Date.parse('2025-03-12T09:00:00Z'),
};
const API_KEY = 'sk-test-4f9a2c1e8b7d6a5f';

type Reply = ScriptedReply;
type ChatBody = { messages: Array<{ role: string; content: string }> } & Record<string, unknown>;

/** A scripted chat completions server: each request gets the next reply; every request is kept. */
let provider: ScriptedServer<ChatBody>;
let baseUrl: string;
let received: ReceivedRequest<ChatBody>[];

beforeAll(async () => {
  provider = await startScriptedServer();
  ({ baseUrl, received } = provider);
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const ok: Reply = { status: 200, body: completion };
const engine = (options: Partial<ConstructorParameters<typeof OpenAiChatInsightsEngine>[0]> = {}) =>
  new OpenAiChatInsightsEngine({
    baseUrl,
    model: 'qwen2.5:7b-instruct',
    maxRetries: 2,
    baseDelayMs: 5,
    ...options,
  });
const bodyOf = (index: number) => received[index]?.body as ChatBody;

describe('OpenAiChatInsightsEngine against a local chat completions server', () => {
  it('asks for the Insights JSON schema and returns the validated answer', async () => {
    provider.replies = [ok];
    const chat = engine({ apiKey: API_KEY });
    const insights = await chat.generateInsights(request);
    expect(chat.name).toBe('openai-compatible:qwen2.5:7b-instruct');
    expect(insights.decisions).toEqual([{ text: 'The app launches on April 7.', citations: [28100] }]);
    expect(insights.action_items[0]).toMatchObject({ owner: 'Bob', due_date: '2025-03-14' });

    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call?.method).toBe('POST');
    expect(call?.url).toBe('/v1/chat/completions');
    expect(call?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = bodyOf(0);
    expect(body.model).toBe('qwen2.5:7b-instruct');
    expect(body.temperature).toBe(0);
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'insights', strict: false, schema: { type: 'object' } },
    });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[1]?.content).toContain('[22400] Bob: Yes, I will fix the Android crash by Friday.');
    expect(body.messages[0]?.content).toContain('2025-03-12');
  });

  it('shows the model who each speaker label is and asks for labels, owners included', async () => {
    provider.replies = [ok];
    const labelled: Transcription = {
      ...transcription,
      conversation_segments: transcription.conversation_segments.map((segment) => ({
        ...segment,
        speaker: segment.speaker === 'Alice' ? 'Speaker 1' : 'Speaker 2',
      })),
    };
    await engine().generateInsights({
      ...request,
      transcription: labelled,
      speaker_names: { 'Speaker 2': 'Bob' },
    });
    const [system, user] = bodyOf(0).messages;
    expect(user?.content).toContain(
      'Speakers (label: the name the user gave them):\nSpeaker 2: "Bob"\nTranscript:\n',
    );
    expect(system?.content).toMatch(
      /owner is the person the transcript says will do it \(a speaker by label\)/,
    );
    expect(system?.content).toContain(
      'Refer to a speaker of the transcript by their label exactly as written',
    );
  });

  it('accepts a base URL ending in /v1 and sends no Authorization without a key', async () => {
    provider.replies = [ok];
    await engine({ baseUrl: `${baseUrl}/v1/` }).generateInsights(request);
    expect(received[0]?.url).toBe('/v1/chat/completions');
    expect(received[0]?.headers.authorization).toBeUndefined();
  });

  it('honours Retry-After on a 429, then succeeds', async () => {
    provider.replies = [
      {
        status: 429,
        headers: { 'retry-after': '1' },
        body: '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
      },
      ok,
    ];
    const started = Date.now();
    await engine().generateInsights(request);
    expect(received).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('maps persistent 429 to ProviderThrottledError after maxRetries + 1 requests', async () => {
    const limited: Reply = {
      status: 429,
      body: '{"error":{"message":"Too many requests","code":"rate_limit_exceeded"}}',
    };
    provider.replies = [limited, limited, limited];
    const failure = engine().generateInsights(request);
    await expect(failure).rejects.toBeInstanceOf(ProviderThrottledError);
    await expect(failure).rejects.toThrow(/answered 429 \(rate_limit_exceeded\) \(3 attempts\)/);
    expect(received).toHaveLength(3);
  });

  it('leaves a Retry-After beyond maxDelayMs to the job queue', async () => {
    provider.replies = [{ status: 429, headers: { 'retry-after': '120' }, body: '{}' }];
    await expect(engine({ maxDelayMs: 2000 }).generateInsights(request)).rejects.toThrow(
      /retry in 120 s, left to the job queue/,
    );
    expect(received).toHaveLength(1);
  });

  it('maps persistent 503 to GenerationFailedError after bounded retries', async () => {
    const down: Reply = {
      status: 503,
      body: '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
    };
    provider.replies = [down, down, down];
    const failure = engine().generateInsights(request);
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/answered 503 \(unavailable_error\) \(3 attempts\)/);
    expect(received).toHaveLength(3);
  });

  it('falls back to json_object with the schema in the prompt when response_format json_schema is refused', async () => {
    provider.replies = [
      {
        status: 400,
        body: '{"error":{"code":400,"message":"response_format type json_schema is not supported","type":"invalid_request_error"}}',
      },
      ok,
    ];
    const insights = await engine().generateInsights(request);
    expect(insights.summary.citations).toEqual([0, 15000, 28100, 68400]);
    expect(received).toHaveLength(2);
    const retry = bodyOf(1);
    expect(retry.response_format).toEqual({ type: 'json_object' });
    expect(retry.messages[0]?.content).toContain('matches this JSON schema');
    expect(retry.messages[0]?.content).toContain('"action_items"');
  });

  it('re-asks once after an invalid answer', async () => {
    const invalid = JSON.parse(completion) as { choices: Array<{ message: { content: string } }> };
    const first = invalid.choices[0];
    if (first) first.message.content = '{"summary": {"text": "A meeting."}, "key_points": "none"}';
    provider.replies = [{ status: 200, body: JSON.stringify(invalid) }, ok];
    await engine().generateInsights(request);
    expect(received).toHaveLength(2);
    const retry = bodyOf(1);
    expect(retry.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(retry.messages[3]?.content).toMatch(/does not match the Insights schema/);
  });

  it('keeps the key and the transcript out of error messages', async () => {
    provider.replies = [
      {
        status: 401,
        body: `{"error":{"message":"Incorrect API key provided: ${API_KEY}. Request: Bob: payment screen","type":"invalid_request_error","code":"invalid_api_key"}}`,
      },
    ];
    const message = await engine({ apiKey: API_KEY })
      .generateInsights(request)
      .catch((error: Error) => error.message);
    expect(message).toMatch(/answered 401 \(invalid_api_key\)/);
    expect(message).not.toContain(API_KEY);
    expect(message).not.toContain('payment');
    expect(received).toHaveLength(1);
  });
});

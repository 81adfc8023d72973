import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiChatAnswerEngine } from '../../src/adapters/llm/openai-chat-answer.ts';
import { OpenAiChatArtifactEngine } from '../../src/adapters/llm/openai-chat-artifacts.ts';
import type { ArtifactKind } from '../../src/domain/artifacts.ts';
import type { Transcription } from '../../src/domain/transcript.ts';
import type { AnswerRequest } from '../../src/ports/answer-engine.ts';
import type { ArtifactRequest } from '../../src/ports/artifact-engine.ts';
import {
  GenerationFailedError,
  ProviderThrottledError,
  ProviderTimedOutError,
} from '../../src/ports/generation-errors.ts';
import {
  type ReceivedRequest,
  type ScriptedReply,
  type ScriptedServer,
  startScriptedServer,
} from '../support/scripted-server.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/llm/${name}`, import.meta.url), 'utf8');
const transcription = JSON.parse(fixture('transcript.json')) as Transcription;
const artifactJson = {
  epiphany: fixture('epiphany.json'),
  deep_research: fixture('deep-research.json'),
  podcast: fixture('podcast.json'),
};
const artifactRequest = <K extends ArtifactKind>(kind: K): ArtifactRequest<K> => ({
  kind,
  transcription,
  title: 'Mobile launch sync',
  language: 'de',
  reference_time: Date.parse('2025-03-12T09:00:00Z'),
});
const answerRequest: AnswerRequest = {
  question: 'When does the app launch?',
  passages: [
    {
      note_id: 'n_launch',
      note_title: 'Mobile launch sync',
      start_ms: 28100,
      end_ms: 36900,
      text: 'Then we launch on April 7. I will tell the marketing team today.',
      turns: [
        { speaker: 'Speaker 1', text: 'Then we launch on April 7. I will tell the marketing team today.' },
      ],
    },
  ],
};
const API_KEY = 'sk-test-4f9a2c1e8b7d6a5f';

type Reply = ScriptedReply;
type ChatBody = { messages: Array<{ role: string; content: string }> } & Record<string, unknown>;

/** A chat completion as Ollama's OpenAI-compatible endpoint sends it (see chat-completion.json). */
const completion = (content: string, finish_reason = 'stop'): Reply => ({
  status: 200,
  body: JSON.stringify({
    id: 'chatcmpl-5e2d1c0b',
    object: 'chat.completion',
    created: 1741780800,
    model: 'qwen2.5:7b-instruct',
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason }],
    usage: { prompt_tokens: 2240, completion_tokens: 512, total_tokens: 2752 },
  }),
});
const goodAnswer = completion(
  JSON.stringify({ answer: 'On April 7.', citations: [{ note_id: 'n_launch', start_ms: 28100 }] }),
);
const limited: Reply = {
  status: 429,
  body: '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
};
const down: Reply = {
  status: 503,
  body: '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
};

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

const options = { model: 'qwen2.5:7b-instruct', maxRetries: 2, baseDelayMs: 5 };
const artifacts = (extra: { apiKey?: string } = {}) =>
  new OpenAiChatArtifactEngine({ baseUrl, ...options, ...extra });
const answers = (extra: { apiKey?: string } = {}) =>
  new OpenAiChatAnswerEngine({ baseUrl, ...options, ...extra });

describe('OpenAiChatArtifactEngine against a local chat completions server', () => {
  it.each([
    ['epiphany', 'epiphany'],
    ['deep_research', 'deep_research'],
    ['podcast', 'podcast_script'],
  ] as const)(
    'asks for the %s JSON schema (%s) and returns the grounded artifact',
    async (kind, schemaName) => {
      provider.replies = [completion(artifactJson[kind])];
      const chat = artifacts({ apiKey: API_KEY });
      const artifact = await chat.generateArtifact(artifactRequest(kind));
      expect(chat.name).toBe('openai-compatible:qwen2.5:7b-instruct');
      expect(artifact).toEqual(JSON.parse(artifactJson[kind]));
      expect(received).toHaveLength(1);
      const [call] = received;
      expect(call?.url).toBe('/v1/chat/completions');
      expect(call?.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(call?.body.temperature).toBe(0);
      expect(call?.body.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: schemaName, strict: false, schema: { type: 'object' } },
      });
      expect(call?.body.messages[0]?.content).toContain('language with code de');
      expect(call?.body.messages[1]?.content).toContain(
        '[22400] Bob: Yes, I will fix the Android crash by Friday.',
      );
    },
  );

  it('shows the model who each speaker label is and asks it to write labels, which the service names when read', async () => {
    provider.replies = [completion(artifactJson.epiphany)];
    const labelled: Transcription = {
      ...transcription,
      conversation_segments: transcription.conversation_segments.map((segment) => ({
        ...segment,
        speaker: segment.speaker === 'Alice' ? 'Speaker 1' : 'Speaker 2',
      })),
    };
    await artifacts({ apiKey: API_KEY }).generateArtifact({
      ...artifactRequest('epiphany'),
      transcription: labelled,
      speaker_names: { 'Speaker 2': 'Bob' },
    });
    const [system, user] = received[0]?.body.messages ?? [];
    expect(user?.content).toContain(
      'Speakers (label: the name the user gave them):\nSpeaker 2: "Bob"\nTranscript:\n',
    );
    expect(user?.content).toContain('[22400] Speaker 2: Yes, I will fix the Android crash by Friday.');
    expect(system?.content).toContain(
      'Refer to a speaker of the transcript by their label exactly as written',
    );
  });

  it('drops quotes that are not in the segment they name', async () => {
    const draft = JSON.parse(artifactJson.epiphany) as { ideas: Array<{ evidence: unknown[] }> };
    draft.ideas[1]?.evidence.push({ start_ms: 22400, quote: 'I will fix it on Monday' });
    provider.replies = [completion(JSON.stringify(draft))];
    const artifact = await artifacts().generateArtifact(artifactRequest('epiphany'));
    expect(artifact).toEqual(JSON.parse(artifactJson.epiphany));
  });

  it('honours Retry-After on a 429, then succeeds', async () => {
    provider.replies = [{ ...limited, headers: { 'retry-after': '1' } }, completion(artifactJson.podcast)];
    const started = Date.now();
    const script = await artifacts().generateArtifact(artifactRequest('podcast'));
    expect(script.lines).toHaveLength(9);
    expect(received).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('retries a 503, then succeeds', async () => {
    provider.replies = [down, completion(artifactJson.deep_research)];
    const brief = await artifacts().generateArtifact(artifactRequest('deep_research'));
    expect(brief.claims).toHaveLength(2);
    expect(received).toHaveLength(2);
  });

  it('falls back to json_object with the schema in the prompt when json_schema is refused', async () => {
    provider.replies = [
      {
        status: 400,
        body: '{"error":{"code":400,"message":"response_format type json_schema is not supported","type":"invalid_request_error"}}',
      },
      // JSON mode without a schema: some servers fence the object.
      completion(`\`\`\`json\n${artifactJson.epiphany}\n\`\`\``),
    ];
    const artifact = await artifacts().generateArtifact(artifactRequest('epiphany'));
    expect(artifact.ideas).toHaveLength(2);
    const retry = received[1]?.body;
    expect(retry?.response_format).toEqual({ type: 'json_object' });
    expect(retry?.messages[0]?.content).toContain('matches this JSON schema');
    expect(retry?.messages[0]?.content).toContain('"implication"');
  });

  it('re-asks once after an answer cut off (finish_reason length)', async () => {
    provider.replies = [
      completion('{"lines": [{"host": "host_1", "te', 'length'),
      completion(artifactJson.podcast),
    ];
    await artifacts().generateArtifact(artifactRequest('podcast'));
    const retry = received[1]?.body;
    expect(retry?.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(retry?.messages[3]?.content).toMatch(/cut off \(finish_reason length\)/);
  });

  it('keeps the key out of error messages, persistent 429 included', async () => {
    provider.replies = [
      {
        status: 401,
        body: `{"error":{"message":"Incorrect API key provided: ${API_KEY}.","type":"invalid_request_error","code":"${API_KEY}"}}`,
      },
    ];
    const unauthorised = await artifacts({ apiKey: API_KEY })
      .generateArtifact(artifactRequest('epiphany'))
      .catch((error: Error) => error);
    expect(unauthorised).toBeInstanceOf(GenerationFailedError);
    expect((unauthorised as Error).message).toMatch(/answered 401 \(invalid_request_error\)/);
    expect((unauthorised as Error).message).not.toContain(API_KEY);

    provider.replies = [limited, limited, limited];
    const throttled = await artifacts({ apiKey: API_KEY })
      .generateArtifact(artifactRequest('podcast'))
      .catch((error: Error) => error);
    expect(throttled).toBeInstanceOf(ProviderThrottledError);
    expect((throttled as Error).message).toMatch(/answered 429 \(rate_limit_exceeded\) \(3 attempts\)/);
    expect((throttled as Error).message).not.toContain(API_KEY);
  });
});

describe('OpenAiChatAnswerEngine against a local chat completions server', () => {
  it('asks for the answer schema with the passages and the question, and returns the cited answer', async () => {
    provider.replies = [goodAnswer];
    const chat = answers({ apiKey: API_KEY });
    const draft = await chat.answer(answerRequest);
    expect(chat.name).toBe('openai-compatible:qwen2.5:7b-instruct');
    expect(draft).toEqual({ answer: 'On April 7.', citations: [{ note_id: 'n_launch', start_ms: 28100 }] });
    const body = received[0]?.body;
    expect(body?.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'answer' } });
    expect(body?.messages[0]?.content).toMatch(/Answer only from the passages/);
    expect(body?.messages[1]?.content).toBe(
      'Passages:\n[n_launch 28100-36900] "Mobile launch sync": Speaker 1: Then we launch on April 7. I will tell the marketing team today.\n\nQuestion: "When does the app launch?"',
    );
  });

  it('re-asks when the answer cites only passages it was not given, and fails when it persists', async () => {
    const invented = completion(
      JSON.stringify({ answer: 'On April 7.', citations: [{ note_id: 'n_launch', start_ms: 0 }] }),
    );
    provider.replies = [invented, goodAnswer];
    expect((await answers().answer(answerRequest)).citations).toHaveLength(1);
    expect(received[1]?.body.messages[3]?.content).toMatch(/cites only passages it was not given/);

    provider.replies = [invented, invented];
    await expect(answers().answer(answerRequest)).rejects.toThrow(/no valid answer in two answers/);
  });

  it('gives up at its whole-generation limit, waits between attempts included', async () => {
    const wait = { ...down, headers: { 'retry-after-ms': '400' } };
    provider.replies = [wait, wait, wait];
    const limited = new OpenAiChatAnswerEngine({ baseUrl, ...options, totalTimeoutMs: 100 });
    await expect(limited.answer(answerRequest)).rejects.toBeInstanceOf(ProviderTimedOutError);
    expect(received).toHaveLength(1);
  });

  it('honours Retry-After on a 429 and retries a 503, then answers', async () => {
    provider.replies = [{ ...limited, headers: { 'retry-after-ms': '50' } }, down, goodAnswer];
    expect((await answers().answer(answerRequest)).answer).toBe('On April 7.');
    expect(received).toHaveLength(3);
  });

  it('falls back to json_object when json_schema is refused, and keeps using it', async () => {
    const refused: Reply = {
      status: 400,
      body: '{"error":{"message":"Unsupported parameter: response_format.json_schema","type":"invalid_request_error"}}',
    };
    provider.replies = [refused, goodAnswer, goodAnswer];
    const chat = answers();
    await chat.answer(answerRequest);
    await chat.answer(answerRequest);
    expect(received.map((call) => (call.body.response_format as { type: string }).type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ]);
  });

  it('maps persistent 429 to ProviderThrottledError without the key in the message', async () => {
    provider.replies = [limited, limited, limited];
    const error = await answers({ apiKey: API_KEY })
      .answer(answerRequest)
      .catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(ProviderThrottledError);
    expect((error as Error).message).not.toContain(API_KEY);
    expect(received.every((call) => call.headers.authorization === `Bearer ${API_KEY}`)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { BedrockAnswerEngine } from '../../src/adapters/llm/bedrock-answer.ts';
import type { ConverseClient } from '../../src/adapters/llm/bedrock-converse.ts';
import type { AnswerRequest, AskPassage } from '../../src/ports/answer-engine.ts';
import { GenerationFailedError, ProviderThrottledError } from '../../src/ports/generation-errors.ts';
import {
  FakeConverseClient,
  invalidRequest,
  throttled,
  toolUseResponse,
  unavailable,
} from '../fixtures/llm/converse.ts';

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const passages: AskPassage[] = [
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
  {
    note_id: 'n_launch',
    note_title: 'Mobile launch sync',
    start_ms: 15000,
    end_ms: 21800,
    text: 'Agreed. Can you fix the crash by Friday?',
    turns: [{ speaker: 'Speaker 1', text: 'Agreed. Can you fix the crash by Friday?' }],
  },
];
const request: AnswerRequest = { question: 'When does the app launch?', passages };
const answer = (input: unknown, stopReason?: 'tool_use' | 'max_tokens') =>
  toolUseResponse('record_answer', input, stopReason);
const good = () =>
  answer({
    answer: 'The app launches on April 7, provided the crash is fixed by Friday.',
    citations: [
      { note_id: 'n_launch', start_ms: 28100 },
      { note_id: 'n_launch', start_ms: 15000 },
    ],
  });
const engine = (client: ConverseClient) =>
  new BedrockAnswerEngine(client, { modelId: MODEL, baseDelayMs: 1 });

describe('BedrockAnswerEngine', () => {
  it('answers through a forced record_answer call over the passages, and keeps valid citations', async () => {
    const client = new FakeConverseClient([good()]);
    const bedrock = engine(client);
    const draft = await bedrock.answer(request);
    expect(bedrock.name).toBe(`bedrock:${MODEL}`);
    expect(draft.citations).toEqual([
      { note_id: 'n_launch', start_ms: 28100 },
      { note_id: 'n_launch', start_ms: 15000 },
    ]);
    const input = client.inputs[0];
    expect(input?.toolConfig?.toolChoice).toEqual({ tool: { name: 'record_answer' } });
    const user = input?.messages?.[0]?.content?.[0]?.text ?? '';
    expect(user).toContain(
      '[n_launch 28100-36900] "Mobile launch sync": Speaker 1: Then we launch on April 7.',
    );
    expect(user).toContain('Question: "When does the app launch?"');
    expect(input?.system?.[0]?.text).toMatch(/Answer only from the passages/);
  });

  it('accepts an answer that says the notes do not tell, citing nothing', async () => {
    const client = new FakeConverseClient([answer({ answer: 'The notes do not say.', citations: [] })]);
    expect(await engine(client).answer(request)).toEqual({ answer: 'The notes do not say.', citations: [] });
  });

  it('re-asks when every citation is invented, then takes the corrected answer', async () => {
    const invented = answer({ answer: 'On April 7.', citations: [{ note_id: 'n_other', start_ms: 28100 }] });
    const client = new FakeConverseClient([invented, good()]);
    const draft = await engine(client).answer(request);
    expect(draft.citations).toHaveLength(2);
    const result = client.inputs[1]?.messages?.[2]?.content?.[0]?.toolResult;
    expect(result?.status).toBe('error');
    expect(result?.content?.[0]?.text).toMatch(/cites only passages it was not given/);
  });

  it('fails with GenerationFailedError when the citations stay invented', async () => {
    const invented = () =>
      answer({ answer: 'On April 7.', citations: [{ note_id: 'n_launch', start_ms: 1 }] });
    const client = new FakeConverseClient([invented(), invented()]);
    const failure = engine(client).answer(request);
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/no valid answer in two answers/);
  });

  it('tells the model what was malformed, and gives up when the second answer is cut off at maxTokens', async () => {
    const client = new FakeConverseClient([
      answer({ text: 'April 7' }),
      answer({ answer: 'On Ap' }, 'max_tokens'),
      good(),
    ]);
    await expect(engine(client).answer(request)).rejects.toThrow(/cut off at maxTokens/);
    expect(client.inputs[1]?.messages?.[2]?.content?.[0]?.toolResult?.content?.[0]?.text).toMatch(
      /answer schema \(answer: /,
    );
  });

  it('maps persistent throttling to ProviderThrottledError', async () => {
    const client = new FakeConverseClient([throttled(), throttled(), throttled(), throttled()]);
    await expect(engine(client).answer(request)).rejects.toBeInstanceOf(ProviderThrottledError);
    expect(client.inputs).toHaveLength(4);
  });

  it('retries a 503 and succeeds', async () => {
    const client = new FakeConverseClient([unavailable(), good()]);
    expect((await engine(client).answer(request)).answer).toMatch(/April 7/);
    expect(client.inputs).toHaveLength(2);
  });

  it('does not retry a ValidationException', async () => {
    const client = new FakeConverseClient([invalidRequest()]);
    await expect(engine(client).answer(request)).rejects.toBeInstanceOf(GenerationFailedError);
    expect(client.inputs).toHaveLength(1);
  });
});

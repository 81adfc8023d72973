import { readFileSync } from 'node:fs';
import {
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { BedrockInsightsEngine, type ConverseClient } from '../../src/adapters/llm/bedrock-insights.ts';
import type { InsightsContent } from '../../src/domain/insights.ts';
import type { Transcription } from '../../src/domain/transcript.ts';
import { GenerationFailedError, ProviderThrottledError } from '../../src/ports/generation-errors.ts';
import type { InsightsRequest } from '../../src/ports/insights-engine.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/llm/${name}`, import.meta.url), 'utf8')) as T;

const transcription = fixture<Transcription>('transcript.json');
const request: InsightsRequest = {
  transcription,
  title: 'Mobile launch sync',
  reference_time: Date.parse('2025-03-12T09:00:00Z'),
};
const good = () => fixture<ConverseCommandOutput>('converse-tool-use.json');
const malformed = () => fixture<ConverseCommandOutput>('converse-malformed.json');
const throttled = () =>
  new ThrottlingException({
    message: 'Too many requests, please wait before trying again.',
    $metadata: { httpStatusCode: 429 },
  });

/** Answers each `converse` with the next scripted response (or throws it) and keeps the inputs. */
class FakeConverseClient implements ConverseClient {
  readonly inputs: ConverseCommandInput[] = [];
  constructor(private readonly script: Array<ConverseCommandOutput | Error>) {}
  async converse(input: ConverseCommandInput): Promise<ConverseCommandOutput> {
    // Copy: the engine reuses its message list between calls, and the test inspects each call as sent.
    this.inputs.push(structuredClone(input));
    const next = this.script.shift();
    if (!next) throw new Error('unexpected extra call');
    if (next instanceof Error) throw next;
    return next;
  }
}

const engine = (client: ConverseClient) =>
  new BedrockInsightsEngine(client, { modelId: 'anthropic.claude-3-5-haiku-20241022-v1:0', baseDelayMs: 1 });

describe('BedrockInsightsEngine', () => {
  it('reads and validates the record_insights tool input', async () => {
    const client = new FakeConverseClient([good()]);
    const bedrock = engine(client);
    const insights = await bedrock.generateInsights(request);
    expect(bedrock.name).toBe('bedrock:anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(client.inputs).toHaveLength(1);
    const expected = fixture<InsightsContent>('insights.json');
    expect(insights.summary).toEqual(expected.summary);
    expect(insights.action_items).toEqual(expected.action_items);
    expect(insights.chapters).toEqual(expected.chapters);
    // Talk time is computed from the segments, not taken from the model.
    expect(insights.speakers.map((s) => s.speaker).sort()).toEqual(['Alice', 'Bob']);
    expect(insights.speakers.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1, 2);
  });

  it('sends one forced tool with the Insights schema, temperature 0 and the transcript lines', async () => {
    const client = new FakeConverseClient([good()]);
    await engine(client).generateInsights(request);
    const input = client.inputs[0];
    expect(input?.modelId).toBe('anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(input?.inferenceConfig).toEqual({ maxTokens: 4096, temperature: 0 });
    expect(input?.toolConfig?.toolChoice).toEqual({ tool: { name: 'record_insights' } });
    const spec = input?.toolConfig?.tools?.[0]?.toolSpec;
    expect(spec?.name).toBe('record_insights');
    const schema = spec?.inputSchema?.json as Record<string, unknown>;
    expect(schema.type).toBe('object');
    expect(schema).not.toHaveProperty('$schema');
    expect(schema.required).toEqual(
      expect.arrayContaining(['summary', 'action_items', 'chapters', 'speakers']),
    );
    const user = input?.messages?.[0]?.content?.[0]?.text ?? '';
    expect(user).toContain('[6900] Bob: The payment screen still crashes on older Android phones');
    expect(user).toContain('[68400] Bob: Beta testers like the new onboarding');
    const system = input?.system?.[0]?.text ?? '';
    expect(system).toContain('2025-03-12 (Wednesday)');
    expect(system).toContain('language code: en');
  });

  it('re-asks once with a toolResult error after a malformed answer, then succeeds', async () => {
    const client = new FakeConverseClient([malformed(), good()]);
    const insights = await engine(client).generateInsights(request);
    expect(insights.decisions).toEqual([{ text: 'The app launches on April 7.', citations: [28100] }]);
    expect(client.inputs).toHaveLength(2);
    const messages = client.inputs[1]?.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const result = messages[2]?.content?.[0]?.toolResult;
    expect(result?.toolUseId).toBe('tooluse_Xq0b1YwVQeS3m4pZ9f8aTg');
    expect(result?.status).toBe('error');
    expect(result?.content?.[0]?.text).toMatch(/does not match the Insights schema.*summary\.citations/);
  });

  it('re-asks when the model answers in prose instead of calling the tool', async () => {
    const client = new FakeConverseClient([fixture('converse-end-turn-text.json'), good()]);
    await engine(client).generateInsights(request);
    const retry = client.inputs[1]?.messages?.[2]?.content?.[0]?.text;
    expect(retry).toMatch(/did not call record_insights \(stopReason end_turn\)/);
  });

  it('fails with GenerationFailedError when the answer stays malformed, without quoting it', async () => {
    const client = new FakeConverseClient([malformed(), malformed()]);
    const failure = engine(client).generateInsights(request);
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/no valid Insights in two answers/);
    const message = await failure.catch((error: Error) => error.message);
    expect(message).not.toMatch(/payment screen|launch/i);
    expect(client.inputs).toHaveLength(2);
  });

  it('maps persistent throttling to ProviderThrottledError after maxRetries + 1 calls', async () => {
    const client = new FakeConverseClient([throttled(), throttled(), throttled(), throttled()]);
    await expect(engine(client).generateInsights(request)).rejects.toBeInstanceOf(ProviderThrottledError);
    expect(client.inputs).toHaveLength(4);
  });

  it('retries a throttle and succeeds', async () => {
    const client = new FakeConverseClient([throttled(), good()]);
    const insights = await engine(client).generateInsights(request);
    expect(insights.summary.citations).toEqual([0, 15000, 28100, 68400]);
    expect(client.inputs).toHaveLength(2);
  });

  it('maps a persistent service outage to GenerationFailedError after bounded retries', async () => {
    const outage = () =>
      new ServiceUnavailableException({ message: 'Service unavailable', $metadata: { httpStatusCode: 503 } });
    const client = new FakeConverseClient([outage(), outage(), outage(), outage()]);
    await expect(engine(client).generateInsights(request)).rejects.toThrow(
      /failed \(ServiceUnavailableException, 4 attempts\)/,
    );
    expect(client.inputs).toHaveLength(4);
  });

  it('does not retry a ValidationException', async () => {
    const invalid = new ValidationException({
      message: 'Input is too long',
      $metadata: { httpStatusCode: 400 },
    });
    const client = new FakeConverseClient([invalid]);
    await expect(engine(client).generateInsights(request)).rejects.toBeInstanceOf(GenerationFailedError);
    expect(client.inputs).toHaveLength(1);
  });

  it('drops citations that are not segment starts, and items left without any', async () => {
    const response = good();
    const toolUse = response.output?.message?.content?.[0]?.toolUse;
    const input = toolUse?.input as InsightsContent;
    input.summary.citations = [0, 12345, 0];
    input.key_points.push({ text: 'An invented point.', citations: [999, 1] });
    input.decisions[0] = { text: 'The app launches on April 7.', citations: [28100, 30000] };
    input.chapters.push({ title: 'Invented chapter', start_ms: 500, end_ms: 900 });
    const insights = await engine(new FakeConverseClient([response])).generateInsights(request);
    expect(insights.summary.citations).toEqual([0]);
    expect(insights.key_points.map((point) => point.text)).not.toContain('An invented point.');
    expect(insights.key_points).toHaveLength(2);
    expect(insights.decisions[0]?.citations).toEqual([28100]);
    expect(insights.chapters.map((chapter) => chapter.title)).not.toContain('Invented chapter');
  });
});

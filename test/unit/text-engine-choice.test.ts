import { describe, expect, it } from 'vitest';
import { apiSizingOf } from '../../lib/function-sizing.ts';
import type { BedrockOptions } from '../../src/adapters/llm/bedrock-converse.ts';
import { type Config, loadConfigFrom } from '../../src/config.ts';
import { ASK_PROVIDER_TUNING } from '../../src/wiring/ask-services.ts';
import { textEngineChoice } from '../../src/wiring/text-engine-choice.ts';

const config = (env: Record<string, string>): Config =>
  loadConfigFrom({
    NOTES_TABLE_NAME: 'notes',
    NOTES_BUCKET_NAME: 'notes-data',
    NOTES_TRANSCRIPTION_QUEUE_URL: 'http://127.0.0.1:1/transcription',
    NOTES_GENERATION_QUEUE_URL: 'http://127.0.0.1:1/generation',
    ...env,
  });

const bedrockOptionsFor = (env: Record<string, string>, tuning = {}) =>
  textEngineChoice<BedrockOptions | undefined>(
    config({ NOTES_TEXT_ENGINE: 'bedrock', ...env }),
    { local: () => undefined, bedrock: (_client, options) => options, openai: () => undefined },
    tuning,
  );

describe('the text engines as configured', () => {
  it('uses a current Claude model through a US inference profile by default', () => {
    expect(bedrockOptionsFor({})?.modelId).toBe('us.anthropic.claude-sonnet-4-6');
  });

  it('passes the time limit of the task to Bedrock, as to the OpenAI-compatible engine', () => {
    expect(bedrockOptionsFor({}, ASK_PROVIDER_TUNING)).toMatchObject({ timeoutMs: 20_000, maxRetries: 2 });
  });

  it('limits a worker generation to NOTES_BEDROCK_TIMEOUT_SECONDS, 5 minutes by default', () => {
    expect(bedrockOptionsFor({})?.timeoutMs).toBe(300_000);
    expect(bedrockOptionsFor({ NOTES_BEDROCK_TIMEOUT_SECONDS: '600' })?.timeoutMs).toBe(600_000);
  });

  it('gives the OpenAI-compatible engine the same limit per attempt and in all', () => {
    const options = textEngineChoice<unknown>(
      config({ NOTES_TEXT_ENGINE: 'openai', NOTES_OPENAI_CHAT_BASE_URL: 'http://127.0.0.1:11434' }),
      { local: () => undefined, bedrock: () => undefined, openai: (chat) => chat },
      ASK_PROVIDER_TUNING,
    );
    expect(options).toMatchObject({ timeoutMs: 20_000, totalTimeoutMs: 20_000 });
  });

  it("Ask's provider limit ends before its Lambda does, leaving time to answer 504", () => {
    const lambdaMs = apiSizingOf('askWorkspace').timeout.toMilliseconds();
    expect(ASK_PROVIDER_TUNING.timeoutMs).toBeDefined();
    expect(lambdaMs - (ASK_PROVIDER_TUNING.timeoutMs ?? lambdaMs)).toBeGreaterThanOrEqual(5_000);
  });
});

import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { BedrockOptions, ConverseClient } from '../adapters/llm/bedrock-converse.ts';
import type { OpenAiChatOptions } from '../adapters/llm/openai-chat.ts';
import type { Config } from '../config.ts';
import { traced } from '../observability.ts';

/** How to build one task's engine (Insights, artifacts, answers) for each `NOTES_TEXT_ENGINE`. */
export interface TextEngineFactories<T> {
  local: () => T;
  bedrock: (client: ConverseClient, options: BedrockOptions) => T;
  openai: (options: OpenAiChatOptions) => T;
}

/** Provider tuning that differs by task; Ask answers inside an HTTP request, so it retries less. */
export interface TextEngineTuning {
  maxRetries?: number;
  maxDelayMs?: number;
  /** Limit for the whole generation, every attempt and retry included (Ask: what fits its Lambda). */
  timeoutMs?: number;
}

/** The one place `NOTES_TEXT_ENGINE` picks a provider. */
export function textEngineChoice<T>(
  config: Config,
  factories: TextEngineFactories<T>,
  tuning: TextEngineTuning = {},
): T {
  const { maxRetries, maxDelayMs, timeoutMs } = tuning;
  const retries = {
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    ...(maxDelayMs !== undefined ? { maxDelayMs } : {}),
  };
  if (config.NOTES_TEXT_ENGINE === 'bedrock') {
    // The engines retry with their own bounded backoff; SDK retries on top would multiply the calls.
    const client = traced(
      new BedrockRuntimeClient({
        region: config.AWS_REGION,
        maxAttempts: 1,
        ...(config.NOTES_BEDROCK_ENDPOINT ? { endpoint: config.NOTES_BEDROCK_ENDPOINT } : {}),
      }),
    );
    return factories.bedrock(client, {
      modelId: config.NOTES_BEDROCK_MODEL_ID,
      ...retries,
      timeoutMs: timeoutMs ?? config.NOTES_BEDROCK_TIMEOUT_SECONDS * 1000,
    });
  }
  if (config.NOTES_TEXT_ENGINE === 'openai') {
    if (!config.NOTES_OPENAI_CHAT_BASE_URL) {
      throw new Error('NOTES_TEXT_ENGINE=openai needs NOTES_OPENAI_CHAT_BASE_URL');
    }
    return factories.openai({
      baseUrl: config.NOTES_OPENAI_CHAT_BASE_URL,
      model: config.NOTES_OPENAI_CHAT_MODEL,
      ...(config.NOTES_OPENAI_CHAT_API_KEY ? { apiKey: config.NOTES_OPENAI_CHAT_API_KEY } : {}),
      ...retries,
      // Per attempt and in all: a caller with a time limit (Ask) must get its answer or an error in time.
      ...(timeoutMs !== undefined ? { timeoutMs, totalTimeoutMs: timeoutMs } : {}),
    });
  }
  return factories.local();
}

import type { BedrockOptions, ConverseClient } from '../adapters/llm/bedrock-converse.ts';
import { BedrockRuntimeLoadedOnFirstUse } from '../adapters/llm/bedrock-runtime-client.ts';
import type { OpenAiChatOptions } from '../adapters/llm/openai-chat.ts';
import type { Config, TextEngine } from '../config.ts';

/**
 * How to build one task's engines (Insights and artifacts, or answers) for each `NOTES_TEXT_ENGINE`.
 * In a Lambda bundle only the engine it is built for is given, the others are `undefined`: each
 * caller writes the condition itself (`typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || ...`),
 * because esbuild drops an adapter's import only where the constant decides in the importing file.
 */
export interface TextEngineFactories<T> {
  local: (() => T) | undefined;
  bedrock: ((client: ConverseClient, options: BedrockOptions) => T) | undefined;
  openai: ((options: OpenAiChatOptions) => T) | undefined;
}

/** Provider tuning that differs by task; Ask answers inside an HTTP request, so it retries less. */
export interface TextEngineTuning {
  maxRetries?: number;
  maxDelayMs?: number;
  /** Limit for the whole generation, every attempt and retry included (Ask: what fits its Lambda). */
  timeoutMs?: number;
}

/**
 * Replaced in each Lambda bundle by the text engine it is built for: the function's
 * `NOTES_TEXT_ENGINE` in the stack (lib/bundling.ts `wiringDefines`). Undefined in unbundled code
 * (tests, `npm start`), which wires every engine and lets the configuration choose.
 */
declare const NOTES_BUNDLE_TEXT_ENGINE: TextEngine | undefined;

/**
 * A bundle configured for another engine than it was built for: it carries no adapter for it, so it
 * says so instead of failing later on a missing factory.
 */
function engineNotWired(configured: TextEngine, wired: TextEngine | undefined): Error {
  return new Error(
    `NOTES_TEXT_ENGINE=${configured}, but this bundle is wired for the ${wired ?? 'other'} text engine only ` +
      `(lib/bundling.ts builds each function for its NOTES_TEXT_ENGINE): build it for ${configured}`,
  );
}

/**
 * The Bedrock Runtime client, only in bundles built for Bedrock (and in unbundled code); the SDK is
 * imported on the first call (src/adapters/llm/bedrock-runtime-client.ts).
 */
const bedrockClient =
  typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'bedrock'
    ? (config: Config): ConverseClient =>
        new BedrockRuntimeLoadedOnFirstUse({
          region: config.AWS_REGION,
          maxAttempts: 1,
          ...(config.NOTES_BEDROCK_ENDPOINT ? { endpoint: config.NOTES_BEDROCK_ENDPOINT } : {}),
        })
    : undefined;

/** The one place `NOTES_TEXT_ENGINE` picks a provider. */
export function textEngineChoice<T>(
  config: Config,
  factories: TextEngineFactories<T>,
  tuning: TextEngineTuning = {},
): T {
  const wired = typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' ? undefined : NOTES_BUNDLE_TEXT_ENGINE;
  if (wired !== undefined && config.NOTES_TEXT_ENGINE !== wired) {
    throw engineNotWired(config.NOTES_TEXT_ENGINE, wired);
  }
  const { maxRetries, maxDelayMs, timeoutMs } = tuning;
  const retries = {
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    ...(maxDelayMs !== undefined ? { maxDelayMs } : {}),
  };
  if (config.NOTES_TEXT_ENGINE === 'bedrock') {
    if (!factories.bedrock || !bedrockClient) throw engineNotWired('bedrock', wired);
    // The engines retry with their own bounded backoff; SDK retries on top would multiply the calls.
    return factories.bedrock(bedrockClient(config), {
      modelId: config.NOTES_BEDROCK_MODEL_ID,
      ...retries,
      timeoutMs: timeoutMs ?? config.NOTES_BEDROCK_TIMEOUT_SECONDS * 1000,
    });
  }
  if (config.NOTES_TEXT_ENGINE === 'openai') {
    if (!factories.openai) throw engineNotWired('openai', wired);
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
  if (!factories.local) throw engineNotWired('local', wired);
  return factories.local();
}

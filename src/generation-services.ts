import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ExtractiveInsightsEngine } from './adapters/extractive/engine.ts';
import { BedrockInsightsEngine } from './adapters/llm/bedrock-insights.ts';
import { OpenAiChatInsightsEngine } from './adapters/llm/openai-chat-insights.ts';
import { type Config, loadConfig } from './config.ts';
import type { GenerationDeps } from './domain/insights-worker.ts';
import { traced } from './observability.ts';
import type { InsightsEngine } from './ports/insights-engine.ts';
import { getServices, type Services } from './services.ts';

/**
 * The services of the generation worker: the API's, plus the configured text engine. Kept apart from
 * worker-services.ts so the speech workers' bundles do not carry the NLP model, and the reverse.
 */
export type GenerationServices = Services & GenerationDeps;

let generationServices: GenerationServices | undefined;

export function getGenerationServices(): GenerationServices {
  generationServices ??= { ...getServices(), insights: insightsEngine(loadConfig()) };
  return generationServices;
}

function insightsEngine(config: Config): InsightsEngine {
  if (config.NOTES_TEXT_ENGINE === 'bedrock') {
    // The engine retries with its own bounded backoff; SDK retries on top would multiply the calls.
    const client = traced(new BedrockRuntimeClient({ region: config.AWS_REGION, maxAttempts: 1 }));
    return new BedrockInsightsEngine(client, { modelId: config.NOTES_BEDROCK_MODEL_ID });
  }
  if (config.NOTES_TEXT_ENGINE === 'openai') {
    if (!config.NOTES_OPENAI_CHAT_BASE_URL)
      throw new Error('NOTES_TEXT_ENGINE=openai needs NOTES_OPENAI_CHAT_BASE_URL');
    return new OpenAiChatInsightsEngine({
      baseUrl: config.NOTES_OPENAI_CHAT_BASE_URL,
      model: config.NOTES_OPENAI_CHAT_MODEL,
      ...(config.NOTES_OPENAI_CHAT_API_KEY ? { apiKey: config.NOTES_OPENAI_CHAT_API_KEY } : {}),
    });
  }
  return new ExtractiveInsightsEngine();
}

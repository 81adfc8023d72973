import { PollyClient } from '@aws-sdk/client-polly';
import { ExtractiveArtifactEngine } from '../adapters/extractive/artifacts/engine.ts';
import { ExtractiveInsightsEngine } from '../adapters/extractive/engine.ts';
import { BedrockArtifactEngine } from '../adapters/llm/bedrock-artifacts.ts';
import { BedrockInsightsEngine } from '../adapters/llm/bedrock-insights.ts';
import { OpenAiChatArtifactEngine } from '../adapters/llm/openai-chat-artifacts.ts';
import { OpenAiChatInsightsEngine } from '../adapters/llm/openai-chat-insights.ts';
import { FliteSpeechSynthesizer } from '../adapters/synthesis/flite-synthesizer.ts';
import { PollySpeechSynthesizer } from '../adapters/synthesis/polly-synthesizer.ts';
import { type Config, loadConfig } from '../config.ts';
import type { ArtifactWorkerDeps } from '../domain/artifact-worker.ts';
import type { GenerationDeps } from '../domain/insights-worker.ts';
import { traced } from '../observability.ts';
import type { ArtifactEngine } from '../ports/artifact-engine.ts';
import type { InsightsEngine } from '../ports/insights-engine.ts';
import type { SpeechSynthesizer } from '../ports/speech-synthesizer.ts';
import { getServices, type Services } from './services.ts';
import { textEngineChoice } from './text-engine-choice.ts';

/**
 * The services of the generation worker: the API's, plus the configured text engines and speech
 * synthesizer. Kept apart from worker-services.ts so the speech workers' bundles do not carry the NLP
 * model, and the reverse.
 */
export type GenerationServices = Services & GenerationDeps & ArtifactWorkerDeps;

let generationServices: GenerationServices | undefined;

export function getGenerationServices(): GenerationServices {
  if (!generationServices) {
    const config = loadConfig();
    generationServices = {
      ...getServices(),
      insights: textEngineChoice<InsightsEngine>(config, {
        local: () => new ExtractiveInsightsEngine(),
        bedrock: (client, options) => new BedrockInsightsEngine(client, options),
        openai: (options) => new OpenAiChatInsightsEngine(options),
      }),
      artifacts: textEngineChoice<ArtifactEngine>(config, {
        local: () => new ExtractiveArtifactEngine(),
        bedrock: (client, options) => new BedrockArtifactEngine(client, options),
        openai: (options) => new OpenAiChatArtifactEngine(options),
      }),
      voices: speechSynthesizer(config),
    };
  }
  return generationServices;
}

function speechSynthesizer(config: Config): SpeechSynthesizer {
  if (config.NOTES_SPEECH_SYNTHESIZER === 'polly') {
    return new PollySpeechSynthesizer(traced(new PollyClient({ region: config.AWS_REGION, maxAttempts: 1 })));
  }
  return new FliteSpeechSynthesizer({
    fliteBin: config.NOTES_FLITE_PATH,
    ffmpegBin: config.NOTES_FFMPEG_PATH,
  });
}

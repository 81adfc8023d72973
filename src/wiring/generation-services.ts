import { PollyClient } from '@aws-sdk/client-polly';
import { ExtractiveArtifactEngine } from '../adapters/extractive/artifacts/engine.ts';
import { ExtractiveInsightsEngine } from '../adapters/extractive/engine.ts';
import { BedrockArtifactEngine } from '../adapters/llm/bedrock-artifacts.ts';
import { BedrockInsightsEngine } from '../adapters/llm/bedrock-insights.ts';
import { OpenAiChatArtifactEngine } from '../adapters/llm/openai-chat-artifacts.ts';
import { OpenAiChatInsightsEngine } from '../adapters/llm/openai-chat-insights.ts';
import { FliteSpeechSynthesizer } from '../adapters/synthesis/flite-synthesizer.ts';
import { PollySpeechSynthesizer } from '../adapters/synthesis/polly-synthesizer.ts';
import { type Config, loadConfig, type TextEngine } from '../config.ts';
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

/** The text engines of the generation worker: one provider (and one Bedrock client) for both. */
interface TextEngines {
  insights: InsightsEngine;
  artifacts: ArtifactEngine;
}

/**
 * The text engine a Lambda bundle is built for (src/wiring/text-engine-choice.ts): each condition
 * below is written out here, so esbuild drops the other engines' adapters from the bundle (the
 * extractive engines and their NLP model, the OpenAI chat adapter).
 */
declare const NOTES_BUNDLE_TEXT_ENGINE: TextEngine | undefined;

export function getGenerationServices(): GenerationServices {
  if (!generationServices) {
    const config = loadConfig();
    generationServices = {
      ...getServices(),
      ...textEngineChoice<TextEngines>(config, {
        local:
          typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'local'
            ? () => ({ insights: new ExtractiveInsightsEngine(), artifacts: new ExtractiveArtifactEngine() })
            : undefined,
        bedrock:
          typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'bedrock'
            ? (client, options) => ({
                insights: new BedrockInsightsEngine(client, options),
                artifacts: new BedrockArtifactEngine(client, options),
              })
            : undefined,
        openai:
          typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'openai'
            ? (options) => ({
                insights: new OpenAiChatInsightsEngine(options),
                artifacts: new OpenAiChatArtifactEngine(options),
              })
            : undefined,
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

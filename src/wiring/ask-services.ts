import { ExtractiveAnswerEngine } from '../adapters/extractive/answer.ts';
import { BedrockAnswerEngine } from '../adapters/llm/bedrock-answer.ts';
import { OpenAiChatAnswerEngine } from '../adapters/llm/openai-chat-answer.ts';
import { loadConfig, type TextEngine } from '../config.ts';
import type { AnswerEngine } from '../ports/answer-engine.ts';
import { type TextEngineTuning, textEngineChoice } from './text-engine-choice.ts';

export interface AskServices {
  answers: AnswerEngine;
}

let askServices: AskServices | undefined;

/**
 * Ask answers within the API's 30-second integration limit (its Lambda stops at 28 s), so providers
 * get two quick retries, and Bedrock gives up after 20 s in all (504) with time left to answer; a
 * provider still throttling after that is a 429 for the client to back off from.
 */
export const ASK_PROVIDER_TUNING: TextEngineTuning = { maxRetries: 2, maxDelayMs: 2_000, timeoutMs: 20_000 };

/**
 * The text engine a Lambda bundle is built for (src/wiring/text-engine-choice.ts): each condition
 * below is written out here, so esbuild drops the other engines' adapters from the bundle.
 */
declare const NOTES_BUNDLE_TEXT_ENGINE: TextEngine | undefined;

/** What Ask adds to the API's services: the configured answer engine, created once per process. */
export function getAskServices(): AskServices {
  askServices ??= {
    answers: textEngineChoice<AnswerEngine>(
      loadConfig(),
      {
        local:
          typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'local'
            ? () => new ExtractiveAnswerEngine()
            : undefined,
        bedrock:
          typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'bedrock'
            ? (client, options) => new BedrockAnswerEngine(client, options)
            : undefined,
        openai:
          typeof NOTES_BUNDLE_TEXT_ENGINE === 'undefined' || NOTES_BUNDLE_TEXT_ENGINE === 'openai'
            ? (options) => new OpenAiChatAnswerEngine(options)
            : undefined,
      },
      ASK_PROVIDER_TUNING,
    ),
  };
  return askServices;
}

import { ExtractiveAnswerEngine } from './adapters/extractive/answer.ts';
import { BedrockAnswerEngine } from './adapters/llm/bedrock-answer.ts';
import { OpenAiChatAnswerEngine } from './adapters/llm/openai-chat-answer.ts';
import { loadConfig } from './config.ts';
import type { AnswerEngine } from './ports/answer-engine.ts';
import { textEngineChoice } from './text-engine-choice.ts';

export interface AskServices {
  answers: AnswerEngine;
}

let askServices: AskServices | undefined;

/**
 * What Ask adds to the API's services: the configured answer engine, created once per process. Ask
 * answers within the API's 30-second integration limit, so providers get two quick retries and a 20-second attempt; a provider
 * still throttling after that is a 429 for the client to back off from.
 */
export function getAskServices(): AskServices {
  askServices ??= {
    answers: textEngineChoice<AnswerEngine>(
      loadConfig(),
      {
        local: () => new ExtractiveAnswerEngine(),
        bedrock: (client, options) => new BedrockAnswerEngine(client, options),
        openai: (options) => new OpenAiChatAnswerEngine(options),
      },
      { maxRetries: 2, maxDelayMs: 2_000, timeoutMs: 20_000 },
    ),
  };
  return askServices;
}

import type { AnswerDraft, AnswerEngine, AnswerRequest } from '../../ports/answer-engine.ts';
import { answerTask } from './answer-task.ts';
import { OpenAiChat, type OpenAiChatOptions } from './openai-chat.ts';

export type OpenAiChatAnswerOptions = OpenAiChatOptions;

/** Ask answers through OpenAI-compatible chat completions with the answer JSON schema (see `openai-chat.ts`). */
export class OpenAiChatAnswerEngine implements AnswerEngine {
  readonly name: string;
  private readonly chat: OpenAiChat;

  constructor(private readonly options: OpenAiChatAnswerOptions) {
    this.chat = new OpenAiChat(options);
    this.name = this.chat.name;
  }

  answer(request: AnswerRequest): Promise<AnswerDraft> {
    return this.chat.run(answerTask(request, { maxTranscriptTokens: this.options.maxTranscriptTokens }));
  }
}

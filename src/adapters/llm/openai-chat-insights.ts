import type { InsightsContent } from '../../domain/insights.ts';
import type { InsightsEngine, InsightsRequest } from '../../ports/insights-engine.ts';
import { insightsTask } from './insights-task.ts';
import { OpenAiChat, type OpenAiChatOptions } from './openai-chat.ts';

export { chatCompletionsUrl } from './openai-chat.ts';
export type OpenAiChatInsightsOptions = OpenAiChatOptions;

/** Insights through OpenAI-compatible chat completions with the Insights JSON schema (see `openai-chat.ts`). */
export class OpenAiChatInsightsEngine implements InsightsEngine {
  readonly name: string;
  /** The collections' instructions go into the prompt (prompt.ts, artifact-prompt.ts). */
  readonly followsInstructions = true;
  private readonly chat: OpenAiChat;

  constructor(private readonly options: OpenAiChatInsightsOptions) {
    this.chat = new OpenAiChat(options);
    this.name = this.chat.name;
  }

  generateInsights(request: InsightsRequest): Promise<InsightsContent> {
    return this.chat.run(insightsTask(request, { maxTranscriptTokens: this.options.maxTranscriptTokens }));
  }
}

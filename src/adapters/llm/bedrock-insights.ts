import type { InsightsContent } from '../../domain/insights.ts';
import type { InsightsEngine, InsightsRequest } from '../../ports/insights-engine.ts';
import { BedrockConverse, type BedrockOptions, type ConverseClient } from './bedrock-converse.ts';
import { insightsTask } from './insights-task.ts';

export type { ConverseClient } from './bedrock-converse.ts';
export { INSIGHTS_TOOL } from './insights-task.ts';
export type BedrockInsightsOptions = BedrockOptions;

/** Insights through the Bedrock Converse API: a forced `record_insights` tool call (see `bedrock-converse.ts`). */
export class BedrockInsightsEngine implements InsightsEngine {
  readonly name: string;
  /** The collections' instructions go into the prompt (prompt.ts, artifact-prompt.ts). */
  readonly followsInstructions = true;
  private readonly bedrock: BedrockConverse;

  constructor(
    client: ConverseClient,
    private readonly options: BedrockInsightsOptions,
  ) {
    this.bedrock = new BedrockConverse(client, options);
    this.name = this.bedrock.name;
  }

  generateInsights(request: InsightsRequest): Promise<InsightsContent> {
    return this.bedrock.run(insightsTask(request, { maxTranscriptTokens: this.options.maxTranscriptTokens }));
  }
}

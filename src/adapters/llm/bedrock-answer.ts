import type { AnswerDraft, AnswerEngine, AnswerRequest } from '../../ports/answer-engine.ts';
import { answerTask } from './answer-task.ts';
import { BedrockConverse, type BedrockOptions, type ConverseClient } from './bedrock-converse.ts';

export type BedrockAnswerOptions = BedrockOptions;

/** Ask answers through the Bedrock Converse API: a forced `record_answer` call (see `bedrock-converse.ts`). */
export class BedrockAnswerEngine implements AnswerEngine {
  readonly name: string;
  private readonly bedrock: BedrockConverse;

  constructor(
    client: ConverseClient,
    private readonly options: BedrockAnswerOptions,
  ) {
    this.bedrock = new BedrockConverse(client, options);
    this.name = this.bedrock.name;
  }

  answer(request: AnswerRequest): Promise<AnswerDraft> {
    return this.bedrock.run(answerTask(request, { maxTranscriptTokens: this.options.maxTranscriptTokens }));
  }
}

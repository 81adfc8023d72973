import {
  type ContentBlock,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type Message,
  type ToolInputSchema,
} from '@aws-sdk/client-bedrock-runtime';
import type { InsightsContent } from '../../domain/insights.ts';
import {
  GenerationFailedError,
  type InsightsEngine,
  type InsightsRequest,
  ProviderThrottledError,
} from '../../ports/insights-engine.ts';
import { buildInsightsPrompt, type InsightsPrompt } from './prompt.ts';
import { backoffMs, sleep } from './retry.ts';
import { insightsJsonSchema } from './schema.ts';
import { validateInsights } from './validate.ts';

/** What the engine needs of `BedrockRuntimeClient`; tests pass a fake. */
export interface ConverseClient {
  send(command: ConverseCommand): Promise<ConverseCommandOutput>;
}

export interface BedrockInsightsOptions {
  /** A model ID or inference profile, e.g. `anthropic.claude-3-5-haiku-20241022-v1:0`. */
  modelId: string;
  /** Further attempts after throttling or a transient service error. Default 3. */
  maxRetries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts. Default 20 s. */
  maxDelayMs?: number;
  /** Output token limit; Insights for an hour of talk fit in 4096. */
  maxTokens?: number;
  /** Transcript budget in estimated tokens (see `prompt.ts`). */
  maxTranscriptTokens?: number;
}

export const INSIGHTS_TOOL = 'record_insights';

/** Exceptions worth another attempt: capacity and time-outs on Bedrock's side, not the request. */
const TRANSIENT = new Set([
  'ServiceUnavailableException',
  'ModelTimeoutException',
  'InternalServerException',
  'ModelNotReadyException',
]);

/**
 * Insights through the Bedrock Converse API. Structured output is a forced call of one tool whose input
 * schema is the Insights JSON schema; the tool input is validated like any other model output, and one
 * invalid answer is answered with a `toolResult` error so the model can correct itself.
 */
export class BedrockInsightsEngine implements InsightsEngine {
  readonly name: string;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly client: ConverseClient,
    private readonly options: BedrockInsightsOptions,
  ) {
    this.name = `bedrock:${options.modelId}`;
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 20_000;
  }

  async generateInsights(request: InsightsRequest): Promise<InsightsContent> {
    const prompt = buildInsightsPrompt(request, { maxTranscriptTokens: this.options.maxTranscriptTokens });
    const messages: Message[] = [{ role: 'user', content: [{ text: prompt.user }] }];
    const first = await this.converse(prompt, messages);
    try {
      return this.read(first, request, prompt);
    } catch (error) {
      if (!(error instanceof GenerationFailedError)) throw error;
      messages.push(...reask(first, error.message));
    }
    const second = await this.converse(prompt, messages);
    try {
      return this.read(second, request, prompt);
    } catch (error) {
      if (!(error instanceof GenerationFailedError)) throw error;
      throw new GenerationFailedError(`${this.name} gave no valid Insights in two answers: ${error.message}`);
    }
  }

  /** The command input; public so that tests and operators can see exactly what is sent. */
  commandInput(prompt: InsightsPrompt, messages: Message[]): ConverseCommandInput {
    return {
      modelId: this.options.modelId,
      system: [{ text: prompt.system }],
      messages,
      inferenceConfig: { maxTokens: this.options.maxTokens ?? 4096, temperature: 0 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: INSIGHTS_TOOL,
              description: 'Record the Insights extracted from the transcript.',
              inputSchema: { json: insightsJsonSchema as ToolInputSchema.JsonMember['json'] },
            },
          },
        ],
        toolChoice: { tool: { name: INSIGHTS_TOOL } },
      },
    };
  }

  private async converse(prompt: InsightsPrompt, messages: Message[]): Promise<ConverseCommandOutput> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.client.send(new ConverseCommand(this.commandInput(prompt, messages)));
      } catch (error) {
        const kind = classify(error);
        const name = errorName(error);
        if (kind !== 'fatal' && attempt < this.maxRetries) {
          await sleep(backoffMs(attempt, this.baseDelayMs, this.maxDelayMs));
          continue;
        }
        const tries = attempt + 1;
        // Only the exception's name: Bedrock messages can echo request content.
        if (kind === 'throttled') {
          throw new ProviderThrottledError(`Bedrock throttled ${this.name} (${name}, ${tries} attempts)`, {
            cause: error,
          });
        }
        const suffix = kind === 'transient' ? `, ${tries} attempts` : '';
        throw new GenerationFailedError(`Bedrock call to ${this.name} failed (${name}${suffix})`, {
          cause: error,
        });
      }
    }
  }

  private read(
    response: ConverseCommandOutput,
    request: InsightsRequest,
    prompt: InsightsPrompt,
  ): InsightsContent {
    const blocks = response.output?.message?.content ?? [];
    const toolUse = blocks.find((block) => block.toolUse?.name === INSIGHTS_TOOL)?.toolUse;
    if (!toolUse) throw new GenerationFailedError(missingToolReason(response.stopReason));
    if (response.stopReason === 'max_tokens') {
      throw new GenerationFailedError(
        `The answer was cut off at maxTokens (${this.options.maxTokens ?? 4096})`,
      );
    }
    return validateInsights(toolUse.input, request.transcription, prompt.citable);
  }
}

function missingToolReason(stopReason: string | undefined): string {
  if (stopReason === 'max_tokens') return 'The answer was cut off before the tool call';
  if (stopReason === 'guardrail_intervened' || stopReason === 'content_filtered') {
    return `The answer was filtered (${stopReason})`;
  }
  return `The model did not call ${INSIGHTS_TOOL} (stopReason ${stopReason ?? 'missing'})`;
}

/**
 * The follow-up turn for an invalid answer. Converse requires a `toolResult` for every `toolUse` of the
 * previous assistant turn, and `status: 'error'` is how the tool-use guide says to report a failed call.
 */
function reask(response: ConverseCommandOutput, reason: string): Message[] {
  const content: ContentBlock[] = response.output?.message?.content ?? [];
  if (content.length === 0) return [];
  const toolUses = content.flatMap((block) => (block.toolUse ? [block.toolUse] : []));
  const instruction = `${reason}. Call ${INSIGHTS_TOOL} again with the complete, corrected input.`;
  const reply: ContentBlock[] =
    toolUses.length > 0
      ? toolUses.map((use) => ({
          toolResult: { toolUseId: use.toolUseId, status: 'error', content: [{ text: instruction }] },
        }))
      : [{ text: instruction }];
  return [
    { role: 'assistant', content },
    { role: 'user', content: reply },
  ];
}

type ErrorKind = 'throttled' | 'transient' | 'fatal';

function classify(error: unknown): ErrorKind {
  const name = errorName(error);
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  if (name === 'ThrottlingException' || status === 429) return 'throttled';
  if (TRANSIENT.has(name) || (status !== undefined && status >= 500)) return 'transient';
  return 'fatal';
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown error';
}

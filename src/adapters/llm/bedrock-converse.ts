import type {
  ContentBlock,
  ConverseCommandInput,
  ConverseCommandOutput,
  Message,
  ToolInputSchema,
} from '@aws-sdk/client-bedrock-runtime';
import {
  GenerationFailedError,
  ProviderThrottledError,
  ProviderTimedOutError,
} from '../../ports/generation-errors.ts';
import { modelProblem } from './bedrock-model-errors.ts';
import { backoffMs, sleep } from './retry.ts';
import type { StructuredTask } from './structured-task.ts';

/**
 * What the engines need of Bedrock: one Converse call. The input, not an SDK command, so that this
 * module imports only the SDK's types: `bedrock-runtime-client.ts` (the SDK client, imported on first
 * call) makes the command. Tests pass a fake.
 */
export interface ConverseClient {
  converse(
    input: ConverseCommandInput,
    options?: { abortSignal?: AbortSignal },
  ): Promise<ConverseCommandOutput>;
}

/** Options of every Bedrock engine (Insights, artifacts, answers). */
export interface BedrockOptions {
  /** A model ID or inference profile ID, e.g. `us.anthropic.claude-sonnet-4-6`. */
  modelId: string;
  /**
   * Limit for one whole generation: every attempt, the waits between them and the one re-ask. The
   * request in flight is aborted when it passes. Default 5 min (workers); Ask passes what fits in
   * its Lambda's time.
   */
  timeoutMs?: number;
  /** Further attempts after throttling or a transient service error. Default 3. */
  maxRetries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts. Default 20 s. */
  maxDelayMs?: number;
  /** Output token limit. Default 4096: Insights for an hour of talk, an artifact or an answer fit. */
  maxTokens?: number;
  /** Transcript (or Ask passages) budget in estimated tokens (see `prompt.ts`). */
  maxTranscriptTokens?: number;
}

/** Exceptions worth another attempt: capacity and time-outs on Bedrock's side, not the request. */
const TRANSIENT = new Set([
  'ServiceUnavailableException',
  'ModelTimeoutException',
  'InternalServerException',
  'ModelNotReadyException',
]);

/**
 * Structured output through the Bedrock Converse API, for any `StructuredTask`. The output is a forced
 * call of the task's one tool, whose input schema is the task's JSON schema; the tool input is checked
 * by the task, and one invalid answer is answered with a `toolResult` error so the model can correct
 * itself. Throttling ends in `ProviderThrottledError`; a model that cannot be used (denied, unknown,
 * retired) in `ProviderMisconfiguredError`; the time limit in `ProviderTimedOutError`; anything else
 * in `GenerationFailedError`.
 */
export class BedrockConverse {
  readonly name: string;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly client: ConverseClient,
    private readonly options: BedrockOptions,
  ) {
    this.name = `bedrock:${options.modelId}`;
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 20_000;
    this.maxTokens = options.maxTokens ?? 4096;
    this.timeoutMs = options.timeoutMs ?? 300_000;
  }

  async run<T>(task: StructuredTask<T>): Promise<T> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const messages: Message[] = [{ role: 'user', content: [{ text: task.user }] }];
    const first = await this.converse(task, messages, deadline);
    try {
      return this.read(first, task);
    } catch (error) {
      if (!(error instanceof GenerationFailedError)) throw error;
      messages.push(...reask(first, task.toolName, error.message));
    }
    const second = await this.converse(task, messages, deadline);
    try {
      return this.read(second, task);
    } catch (error) {
      if (!(error instanceof GenerationFailedError)) throw error;
      throw new GenerationFailedError(
        `${this.name} gave no valid ${task.label} in two answers: ${error.message}`,
      );
    }
  }

  /** The command input; public so that tests and operators can see exactly what is sent. */
  commandInput(task: StructuredTask<unknown>, messages: Message[]): ConverseCommandInput {
    return {
      modelId: this.options.modelId,
      system: [{ text: task.system }],
      messages,
      inferenceConfig: { maxTokens: this.maxTokens, temperature: 0 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: task.toolName,
              description: task.toolDescription,
              inputSchema: { json: task.jsonSchema as ToolInputSchema.JsonMember['json'] },
            },
          },
        ],
        toolChoice: { tool: { name: task.toolName } },
      },
    };
  }

  private async converse(
    task: StructuredTask<unknown>,
    messages: Message[],
    deadline: AbortSignal,
  ): Promise<ConverseCommandOutput> {
    for (let attempt = 0; ; attempt++) {
      try {
        if (deadline.aborted) throw deadline.reason;
        return await this.client.converse(this.commandInput(task, messages), { abortSignal: deadline });
      } catch (error) {
        if (deadline.aborted) throw this.timedOut(error);
        const misconfigured = modelProblem(error, this.options.modelId);
        if (misconfigured) throw misconfigured;
        const kind = classify(error);
        const name = errorName(error);
        if (kind !== 'fatal' && attempt < this.maxRetries) {
          await sleep(backoffMs(attempt, this.baseDelayMs, this.maxDelayMs), undefined, {
            signal: deadline,
          }).catch((aborted: unknown) => {
            throw this.timedOut(aborted);
          });
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

  private timedOut(cause: unknown): ProviderTimedOutError {
    const seconds = Math.round(this.timeoutMs / 100) / 10;
    return new ProviderTimedOutError(
      `Bedrock call to ${this.name} gave no answer within ${seconds} s`,
      this.timeoutMs,
      {
        cause,
      },
    );
  }

  private read<T>(response: ConverseCommandOutput, task: StructuredTask<T>): T {
    const blocks = response.output?.message?.content ?? [];
    const toolUse = blocks.find((block) => block.toolUse?.name === task.toolName)?.toolUse;
    if (!toolUse) throw new GenerationFailedError(missingToolReason(response.stopReason, task.toolName));
    if (response.stopReason === 'max_tokens') {
      throw new GenerationFailedError(`The answer was cut off at maxTokens (${this.maxTokens})`);
    }
    return task.read(toolUse.input);
  }
}

function missingToolReason(stopReason: string | undefined, toolName: string): string {
  if (stopReason === 'max_tokens') return 'The answer was cut off before the tool call';
  if (stopReason === 'guardrail_intervened' || stopReason === 'content_filtered') {
    return `The answer was filtered (${stopReason})`;
  }
  return `The model did not call ${toolName} (stopReason ${stopReason ?? 'missing'})`;
}

/**
 * The follow-up turn for an invalid answer. Converse requires a `toolResult` for every `toolUse` of the
 * previous assistant turn, and `status: 'error'` is how the tool-use guide says to report a failed call.
 */
function reask(response: ConverseCommandOutput, toolName: string, reason: string): Message[] {
  const content: ContentBlock[] = response.output?.message?.content ?? [];
  if (content.length === 0) return [];
  const toolUses = content.flatMap((block) => (block.toolUse ? [block.toolUse] : []));
  const instruction = `${reason}. Call ${toolName} again with the complete, corrected input.`;
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

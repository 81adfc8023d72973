import {
  GenerationFailedError,
  ProviderMisconfiguredError,
  ProviderThrottledError,
  ProviderTimedOutError,
} from '../../ports/generation-errors.ts';
import { isRecord } from './model-output.ts';
import { backoffMs, retryAfterMs, sleep } from './retry.ts';
import type { StructuredTask } from './structured-task.ts';

/** Options of every OpenAI-compatible chat engine (Insights, artifacts, answers). */
export interface OpenAiChatOptions {
  /**
   * Server root, e.g. `http://127.0.0.1:11434` (Ollama), `http://127.0.0.1:8080` (llama.cpp server),
   * `http://127.0.0.1:8000` (vLLM) or `https://api.openai.com`. A base ending in `/v1` also works.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. Never logged, never put in an error message. */
  apiKey?: string;
  model: string;
  /** Further attempts after a 429, a 5xx, a time-out or a network error. Default 3. */
  maxRetries?: number;
  /** Limit for one attempt. Default 5 min: local CPU servers take minutes for a long transcript. */
  timeoutMs?: number;
  /**
   * Limit for the whole generation (every attempt, the waits between them, the re-ask), for callers
   * that must answer in time (Ask). Unset: only each attempt is limited.
   */
  totalTimeoutMs?: number;
  /** First backoff step; doubles each retry, with jitter. Default 1 s. */
  baseDelayMs?: number;
  /**
   * Longest wait between attempts. A `Retry-After` asking for more ends the retries at once: the job
   * queue redelivers later without holding a worker meanwhile. Default 30 s.
   */
  maxDelayMs?: number;
  /** Sent as `max_tokens` when set; left out, the server's default applies. */
  maxTokens?: number;
  /** Transcript (or Ask passages) budget in estimated tokens (see `prompt.ts`). */
  maxTranscriptTokens?: number;
}

type ResponseFormat = 'json_schema' | 'json_object';
interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
interface Failure {
  kind: 'throttled' | 'transient';
  reason: string;
  retryAfterMs?: number;
}
interface Answer {
  content: string;
  finishReason: string | undefined;
}
interface SchemaRefusal {
  schemaRefused: string;
}

/**
 * Structured output through OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp server,
 * vLLM), for any `StructuredTask`. `response_format: json_schema` with the task's schema; servers that
 * predate it get `json_object` with the schema in the prompt. The answer is checked by the task, and one
 * invalid answer is re-asked. 429 ends in `ProviderThrottledError`; a model the server does not have
 * or an address with no chat completions endpoint in `ProviderMisconfiguredError` (only the operator
 * can fix it); anything else in `GenerationFailedError`. No message holds the key, the URL's
 * user-info or the server's text.
 */
export class OpenAiChat {
  readonly name: string;
  private readonly endpoint: URL;
  /** Downgraded once a server refuses `json_schema`, and kept so later requests skip the refused try. */
  private format: ResponseFormat = 'json_schema';

  constructor(private readonly options: OpenAiChatOptions) {
    this.name = `openai-compatible:${options.model}`;
    this.endpoint = chatCompletionsUrl(options.baseUrl);
  }

  async run<T>(task: StructuredTask<T>): Promise<T> {
    const { totalTimeoutMs } = this.options;
    const deadline = totalTimeoutMs === undefined ? undefined : AbortSignal.timeout(totalTimeoutMs);
    const messages: ChatMessage[] = [{ role: 'user', content: task.user }];
    const first = await this.complete(task, messages, deadline);
    try {
      return read(first, task);
    } catch (error) {
      if (!(error instanceof GenerationFailedError)) throw error;
      messages.push(
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: `${error.message}. Answer again with the complete, corrected JSON object only.`,
        },
      );
    }
    const second = await this.complete(task, messages, deadline);
    try {
      return read(second, task);
    } catch (error) {
      if (!(error instanceof GenerationFailedError)) throw error;
      // Cut off twice: the model's context window (Ollama's default is a few thousand tokens) or the
      // server's output limit is too small for this material; asking again will not change that.
      const tooSmall =
        second.finishReason === 'length'
          ? ": the server's context window or output limit is too small for it (Ollama: raise OLLAMA_CONTEXT_LENGTH)"
          : '';
      throw new GenerationFailedError(
        `${this.name} gave no valid ${task.label} in two answers: ${error.message}${tooSmall}`,
      );
    }
  }

  private async complete(
    task: StructuredTask<unknown>,
    messages: ChatMessage[],
    deadline: AbortSignal | undefined,
  ): Promise<Answer> {
    const maxRetries = this.options.maxRetries ?? 3;
    let downgraded = false;
    for (let attempt = 0; ; ) {
      if (deadline?.aborted) throw this.timedOut();
      const outcome = await this.attempt(task, messages, deadline);
      if ('content' in outcome) return outcome;
      if ('schemaRefused' in outcome) {
        // Older servers refuse `json_schema` with a 400; JSON mode plus the schema in the prompt still works.
        if (this.format === 'json_schema' && !downgraded) {
          this.format = 'json_object';
          downgraded = true;
          continue;
        }
        throw new GenerationFailedError(outcome.schemaRefused);
      }
      const wait =
        outcome.retryAfterMs ?? backoffMs(attempt, this.options.baseDelayMs ?? 1000, this.maxDelayMs());
      if (attempt >= maxRetries || wait > this.maxDelayMs()) throw this.giveUp(outcome, attempt + 1, wait);
      await sleep(wait, undefined, deadline ? { signal: deadline } : {}).catch(() => {
        throw this.timedOut();
      });
      attempt++;
    }
  }

  private async attempt(
    task: StructuredTask<unknown>,
    messages: ChatMessage[],
    deadline: AbortSignal | undefined,
  ): Promise<Answer | Failure | SchemaRefusal> {
    const perAttempt = AbortSignal.timeout(this.options.timeoutMs ?? 300_000);
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(this.body(task, messages)),
        signal: deadline ? AbortSignal.any([perAttempt, deadline]) : perAttempt,
      });
    } catch (error) {
      if (deadline?.aborted) throw this.timedOut();
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return { kind: 'transient', reason: timedOut ? 'timed out' : 'could not be reached' };
    }
    let text = '';
    try {
      text = await response.text();
    } catch (error) {
      if (deadline?.aborted) throw this.timedOut();
      // The connection broke off mid-answer (the server restarted, ran out of memory, a proxy gave
      // up): nothing usable arrived, and another attempt may well get all of it.
      if (response.ok) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        return { kind: 'transient', reason: timedOut ? 'timed out' : 'broke off its answer' };
      }
    }
    if (response.ok) return parseAnswer(text);
    const code = errorCode(text, this.options.apiKey);
    const reason = `answered ${response.status}${code ? ` (${code})` : ''}`;
    const retryAfter = retryAfterMs(response.headers);
    const withWait = retryAfter === undefined ? {} : { retryAfterMs: retryAfter };
    if (response.status === 429) return { kind: 'throttled', reason, ...withWait };
    if (response.status >= 500 || response.status === 408) return { kind: 'transient', reason, ...withWait };
    if ((response.status === 404 || response.status === 400) && modelNotFound(text)) {
      throw this.noSuchModel(response.status);
    }
    if (response.status === 404) throw this.notFound(reason);
    if (response.status === 400 && /response_format|json_schema/i.test(text)) {
      return { schemaRefused: `${this.where()} ${reason}: response_format refused` };
    }
    // Other 4xx: configuration (key, model, URL) or a too-long request; retrying will not help.
    throw new GenerationFailedError(`${this.where()} ${reason}`);
  }

  private body(task: StructuredTask<unknown>, messages: ChatMessage[]): Record<string, unknown> {
    const system =
      this.format === 'json_schema'
        ? task.system
        : `${task.system}\n\nAnswer with one JSON object that matches this JSON schema:\n${JSON.stringify(task.jsonSchema)}`;
    const response_format =
      this.format === 'json_schema'
        ? {
            type: 'json_schema',
            json_schema: { name: task.schemaName, schema: task.jsonSchema, strict: false },
          }
        : { type: 'json_object' };
    return {
      model: this.options.model,
      messages: [{ role: 'system', content: system }, ...messages],
      temperature: 0,
      stream: false,
      response_format,
      ...(this.options.maxTokens === undefined ? {} : { max_tokens: this.options.maxTokens }),
    };
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  private giveUp(failure: Failure, attempts: number, wait: number): Error {
    const tail =
      wait > this.maxDelayMs()
        ? `; it asks to retry in ${Math.ceil(wait / 1000)} s, left to the job queue`
        : ` (${attempts} attempts)`;
    const message = `${this.where()} ${failure.reason}${tail}`;
    return failure.kind === 'throttled'
      ? new ProviderThrottledError(message)
      : new GenerationFailedError(message);
  }

  /**
   * The server has no model by the configured name: Ollama until it is pulled (`model "x" not found,
   * try pulling it first`), or a name the server does not serve. No closing period: the job workers
   * append their own sentence after the detail.
   */
  private noSuchModel(status: number): ProviderMisconfiguredError {
    const { model } = this.options;
    return new ProviderMisconfiguredError(
      `The text engine is not configured correctly: the chat completions server at ${this.endpoint.origin} ` +
        `has no model ${model} (it answered ${status}). Pull the model on that server ` +
        `(Ollama: ollama pull ${model}) or set NOTES_OPENAI_CHAT_MODEL to a model it serves`,
    );
  }

  /** Any other 404: most often a base URL with no chat completions endpoint under it. */
  private notFound(reason: string): ProviderMisconfiguredError {
    return new ProviderMisconfiguredError(
      `The text engine is not configured correctly: the chat completions server at ` +
        `${this.endpoint.origin} ${reason} for ${this.endpoint.pathname}. Check NOTES_OPENAI_CHAT_BASE_URL (the server root or its /v1; ` +
        'Ollama: http://<host>:11434/v1) and NOTES_OPENAI_CHAT_MODEL',
    );
  }

  private timedOut(): ProviderTimedOutError {
    const limit = this.options.totalTimeoutMs ?? 0;
    return new ProviderTimedOutError(`${this.where()} gave no answer within ${limit / 1000} s`, limit);
  }

  private maxDelayMs(): number {
    return this.options.maxDelayMs ?? 30_000;
  }

  /** Origin only: a base URL can carry credentials in its user-info part. */
  private where(): string {
    return `The chat completions server at ${this.endpoint.origin}`;
  }
}

function read<T>(answer: Answer, task: StructuredTask<T>): T {
  if (answer.finishReason === 'length')
    throw new GenerationFailedError('The answer was cut off (finish_reason length)');
  return task.read(answer.content);
}

function parseAnswer(text: string): Answer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GenerationFailedError('The chat completions response is not JSON');
  }
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(choice) || !isRecord(message)) {
    throw new GenerationFailedError('The chat completions response has no choices[0].message');
  }
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
  if (typeof message.refusal === 'string' && message.refusal) {
    throw new GenerationFailedError('The model refused to answer');
  }
  // `content` is a string in every server's answer; an array of text parts is accepted as well.
  const content = Array.isArray(message.content)
    ? message.content
        .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
        .join('')
    : message.content;
  if (typeof content !== 'string' || content.trim() === '') {
    throw new GenerationFailedError(
      `The model answered no content (finish_reason ${finishReason ?? 'missing'})`,
    );
  }
  return { content, finishReason };
}

/**
 * True when an error answer says the model does not exist: Ollama's `model "x" not found, try pulling
 * it first` (its own API and its OpenAI-compatible one), OpenAI's and vLLM's `The model `x` does not
 * exist`, or the code `model_not_found`. Only read to classify, never repeated (it can quote input).
 */
function modelNotFound(text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  const error = isRecord(body) ? body.error : undefined;
  const fields = isRecord(error) ? [error.message, error.code] : [error];
  return fields.some(
    (field) =>
      typeof field === 'string' &&
      (field === 'model_not_found' || /\bmodel\b.{0,200}\b(not found|does not exist)\b/is.test(field)),
  );
}

/**
 * The error's code or type (OpenAI, Ollama, vLLM, llama.cpp all send one); never its message, which can
 * quote input, and never a value holding the key (a server may echo it anywhere).
 */
function errorCode(text: string, apiKey: string | undefined): string | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    const error = isRecord(body) && isRecord(body.error) ? body.error : body;
    if (!isRecord(error)) return undefined;
    const code = [error.code, error.type].find(
      (value) =>
        typeof value === 'string' && /^[\w.-]{1,64}$/.test(value) && !(apiKey && value.includes(apiKey)),
    );
    return code as string | undefined;
  } catch {
    return undefined;
  }
}

export function chatCompletionsUrl(baseUrl: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new Error('baseUrl is not a URL (expected e.g. http://127.0.0.1:11434)');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Error('baseUrl must be http:// or https://');
  const basePath = base.pathname.replace(/\/+$/, '');
  const endpoint = new URL(base.href);
  endpoint.pathname = `${basePath}${basePath.endsWith('/v1') ? '' : '/v1'}/chat/completions`;
  endpoint.search = '';
  endpoint.hash = '';
  return endpoint;
}

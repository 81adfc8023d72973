import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { jitteredBackoff } from '../../backoff.ts';
import { UnreadableAudioError } from '../../domain/errors.ts';
import type { RecognitionHints, RecognitionResult, SpeechToText } from '../../ports/speech-to-text.ts';
import { abortError, throwIfAborted } from '../speech/abort.ts';
import { type ProgressCallback, ProgressReporter } from '../speech/progress-reporter.ts';
import { AudioReadError, type MultipartBody, multipartBody, uploadName } from './multipart.ts';
import { parseVerboseJson, recognitionFromVerboseJson } from './verbose-json.ts';

export interface OpenAiCompatibleOptions {
  /**
   * Server root, e.g. `http://127.0.0.1:8080` (whisper.cpp), `http://127.0.0.1:8000` (speaches) or
   * `https://api.openai.com`. A base ending in `/v1` (the OpenAI SDK convention) also works.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. Never logged, never put in an error message. */
  apiKey?: string;
  /** Default `whisper-1`. Local servers name their models differently (e.g. `Systran/faster-whisper-small`). */
  model?: string;
  /** ISO-639-1 code (`en`); left out, the server detects the language. */
  language?: string;
  /** Vocabulary or style hint passed to the model. */
  prompt?: string;
  temperature?: number;
  /**
   * Path of the transcription endpoint under `baseUrl`. Default `/v1/audio/transcriptions`. The
   * whisper.cpp server serves `/inference` unless started with `--inference-path /v1/audio/transcriptions`.
   */
  path?: string;
  /** Limit for one attempt, upload and recognition together. Default 30 min: CPU servers are slow. */
  timeoutMs?: number;
  /** Further attempts after a 429, a 5xx, a timeout or a network error. Default 3. */
  maxRetries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 1 s. */
  retryBaseDelayMs?: number;
  /**
   * Longest wait between attempts. A `Retry-After` asking for more ends the retries here: the job queue
   * redelivers later without holding a worker meanwhile. Default 60 s.
   */
  maxRetryDelayMs?: number;
  /** Minimum time between upload progress reports. Default 250 ms. */
  progressIntervalMs?: number;
}

/**
 * The server refused the adapter's configuration (credentials, endpoint, model or another request
 * field): no recording will succeed until an operator fixes it, so it is not retried here. It is not an
 * `UnreadableAudioError` either, so the job is not failed for the user's recording.
 */
export class OpenAiConfigurationError extends Error {
  override readonly name = 'OpenAiConfigurationError';
}

/** A verbose_json document for a long recording with word timings is a few MB; this bounds memory. */
const MAX_RESPONSE_BYTES = 64 * 1024 ** 2;
/** Server messages are quoted for operators and users; a short excerpt is enough. */
const MAX_MESSAGE_CHARS = 200;

interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Recognition by a server that speaks OpenAI's `POST /v1/audio/transcriptions`: OpenAI itself, the
 * whisper.cpp server, speaches (faster-whisper-server), LocalAI and the like. The recording is streamed
 * as `multipart/form-data` asking for `verbose_json` with word and segment timestamps; see
 * `verbose-json.ts` for how each server's answer becomes timed words.
 *
 * Requests go through `node:http` rather than the global `fetch`: fetch's built-in dispatcher gives up
 * when response headers take more than 300 s (undici's fixed `headersTimeout`, nodejs/node#46375), and a
 * server answers only once the whole recording is recognised, which on a CPU takes longer than that for
 * long recordings. `node:http` has no such limit, so `timeoutMs` is the only one.
 */
export class OpenAiCompatibleSpeechToText implements SpeechToText {
  private readonly endpoint: URL;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.endpoint = endpointUrl(options);
    this.timeoutMs = options.timeoutMs ?? 30 * 60_000;
    this.maxRetries = options.maxRetries ?? 3;
    if (!(this.timeoutMs > 0)) throw new OpenAiConfigurationError('timeoutMs must be positive');
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) {
      throw new OpenAiConfigurationError('maxRetries must be a whole number, 0 or more');
    }
  }

  async transcribe(
    audioPath: string,
    onProgress?: ProgressCallback,
    _hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    try {
      return await this.transcribeOrAbort(audioPath, onProgress, signal);
    } catch (error) {
      // However the abort surfaced (a destroyed request, a cut-short wait), it is a cancellation.
      throw signal?.aborted ? abortError(signal) : error;
    }
  }

  private async transcribeOrAbort(
    audioPath: string,
    onProgress: ProgressCallback | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RecognitionResult> {
    throwIfAborted(signal);
    const progress = new ProgressReporter(onProgress, this.options.progressIntervalMs ?? 250);
    const { size } = await stat(audioPath);
    const body = multipartBody(this.fields(), { path: audioPath, size, ...(await uploadName(audioPath)) });
    const wait = (ms: number) => sleep(ms, undefined, signal ? { signal } : {});

    for (let attempt = 0; ; attempt++) {
      const retriesLeft = this.maxRetries - attempt;
      await progress.report({ stage: 'uploading', fraction: 0 });
      let reply: HttpReply;
      let uploaded: Promise<void> | undefined;
      try {
        reply = await this.send(body, size, progress, signal, (done) => {
          uploaded = done;
        });
      } catch (error) {
        if (error instanceof AudioReadError) throw error;
        throwIfAborted(signal);
        const reason = `${this.where()} could not be reached: ${this.redact((error as Error).message)}`;
        if (retriesLeft <= 0) throw new Error(this.afterAttempts(attempt, reason));
        await wait(this.backoffMs(attempt));
        continue;
      }
      if (reply.status >= 200 && reply.status < 300) {
        const result = this.recognition(reply);
        // The answer can beat the upload's own completion callback; `recognizing` still comes second.
        await (uploaded ?? progress.report({ stage: 'recognizing' }));
        return result;
      }
      const retryInMs = this.retryDelayOrThrow(reply, attempt, retriesLeft);
      await wait(retryInMs);
    }
  }

  /** The form fields besides the file. Both granularities: `word` alone would drop `segments`. */
  private fields(): Array<[string, string]> {
    const { model, language, prompt, temperature } = this.options;
    const fields: Array<[string, string]> = [
      ['model', model ?? 'whisper-1'],
      ['response_format', 'verbose_json'],
      ['timestamp_granularities[]', 'word'],
      ['timestamp_granularities[]', 'segment'],
    ];
    if (language) fields.push(['language', language]);
    if (prompt) fields.push(['prompt', prompt]);
    if (temperature !== undefined) fields.push(['temperature', String(temperature)]);
    return fields;
  }

  /**
   * One POST. Resolves with any complete HTTP answer (the caller judges the status); rejects on a
   * network failure, a timeout or a failed read of the audio file. `onUploaded` receives the
   * `recognizing` report started once the last byte is sent, to be awaited by the caller.
   */
  private send(
    body: MultipartBody,
    size: number,
    progress: ProgressReporter,
    signal: AbortSignal | undefined,
    onUploaded: (report: Promise<void>) => void,
  ): Promise<HttpReply> {
    return new Promise<HttpReply>((resolve, reject) => {
      const headers: OutgoingHttpHeaders = {
        'content-type': body.contentType,
        'content-length': body.contentLength,
        accept: 'application/json',
      };
      if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
      const send = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
      // An abort destroys the request (and the upload stream feeding it): the server sees the socket close.
      const request = send(this.endpoint, { method: 'POST', headers, ...(signal ? { signal } : {}) });

      let settled = false;
      let uploadDone = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // An early answer (say a 401 before the body was read) makes the rest of the upload pointless.
        if (!uploadDone) request.destroy();
        outcome();
      };
      const timer = setTimeout(() => {
        request.destroy(new Error(`no answer within ${Math.round(this.timeoutMs / 1000)} s`));
      }, this.timeoutMs);

      request.on('error', (error) => settle(() => reject(error)));
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) {
            request.destroy(new Error(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
          } else {
            chunks.push(chunk);
          }
        });
        response.on('end', () =>
          settle(() =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          ),
        );
        response.on('error', (error) => settle(() => reject(error)));
        response.on('close', () => {
          if (!response.complete) settle(() => reject(new Error('the connection closed mid-answer')));
        });
      });

      const source = body.open((sent) => {
        progress.tick({ stage: 'uploading', fraction: size > 0 ? sent / size : 1 });
      });
      pipeline(source, request).then(
        () => {
          uploadDone = true;
          if (settled) return;
          const report = progress.report({ stage: 'recognizing' });
          // Awaited by the caller once the answer is in; marked handled so an early failure is not
          // reported as an unhandled rejection meanwhile.
          report.catch(() => {});
          onUploaded(report);
        },
        // pipeline destroys the request with the error, so it surfaces through `request.on('error')`
        // (or is moot when an answer already settled the attempt).
        () => {},
      );
    });
  }

  private recognition(reply: HttpReply): RecognitionResult {
    let json: unknown;
    try {
      json = JSON.parse(reply.body.toString('utf8'));
    } catch {
      // Not quoted: a server that ignored response_format sends the transcript itself as text.
      const type = reply.headers['content-type'] ?? 'no content-type';
      throw new Error(
        `${this.where()} answered HTTP ${reply.status} with ${reply.body.length} bytes of ${type}, not JSON: ` +
          'does it support response_format=verbose_json?',
      );
    }
    return recognitionFromVerboseJson(parseVerboseJson(json));
  }

  /** Throws the error a non-2xx answer stands for, or returns how long to wait before retrying. */
  private retryDelayOrThrow(reply: HttpReply, attempt: number, retriesLeft: number): number {
    const { status } = reply;
    const error = this.serverError(reply);
    const quoted = error.message ? `: ${error.message}` : '';
    if (status === 401 || status === 403) {
      throw new OpenAiConfigurationError(
        `${this.where()} refused the credentials (HTTP ${status}${quoted}); check the configured API key`,
      );
    }
    if (status === 404 || status === 405) {
      throw new OpenAiConfigurationError(
        `${this.where()} has no transcription endpoint at ${this.endpoint.pathname} (HTTP ${status}); check ` +
          'baseUrl and path (the whisper.cpp server uses /inference unless started with --inference-path)',
      );
    }
    if (status === 400 || status === 415 || status === 422) {
      // Servers answer these both for a bad recording and for a bad request field; only the first is
      // the recording's fault. OpenAI names the field in `param`, FastAPI servers in `detail[].loc`.
      if (error.field && error.field !== 'file') {
        throw new OpenAiConfigurationError(
          `${this.where()} rejected the request field "${error.field}" (HTTP ${status}${quoted})`,
        );
      }
      throw new UnreadableAudioError(`The transcription server could not read the recording${quoted}`);
    }
    if (status === 413) {
      // Retrying the same bytes cannot help (OpenAI takes at most 25 MB), so it is permanent too.
      throw new UnreadableAudioError(`The recording is too large for the transcription server${quoted}`);
    }
    const reason = `${this.where()} answered HTTP ${status}${quoted}`;
    const retryable = status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
    if (!retryable) throw new Error(reason);
    if (retriesLeft <= 0) throw new Error(this.afterAttempts(attempt, reason));
    const askedMs = retryAfterMs(reply.headers);
    const maxDelayMs = this.options.maxRetryDelayMs ?? 60_000;
    if (askedMs !== undefined && askedMs > maxDelayMs) {
      throw new Error(`${reason}; it asks to retry in ${Math.ceil(askedMs / 1000)} s, left to the job queue`);
    }
    return askedMs ?? this.backoffMs(attempt);
  }

  private backoffMs(attempt: number): number {
    return jitteredBackoff(
      attempt,
      this.options.retryBaseDelayMs ?? 1000,
      this.options.maxRetryDelayMs ?? 60_000,
    );
  }

  /** The server's own message, short and without secrets, and the request field it blames, if any. */
  private serverError(reply: HttpReply): { message: string; field?: string } {
    const text = reply.body.toString('utf8');
    let message = text;
    let field: string | undefined;
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      const error = body.error;
      if (typeof error === 'string') {
        message = error; // whisper.cpp: {"error":"failed to read audio data"}
      } else if (isRecord(error) && typeof error.message === 'string') {
        message = error.message; // OpenAI: {"error":{"message","type","param","code"}}
        if (typeof error.param === 'string') field = error.param;
      } else if (typeof body.detail === 'string') {
        message = body.detail; // FastAPI HTTPException
      } else if (Array.isArray(body.detail) && isRecord(body.detail[0])) {
        const [first] = body.detail; // FastAPI validation: [{loc: ["body", "model"], msg}]
        message = typeof first.msg === 'string' ? first.msg : text;
        if (Array.isArray(first.loc) && typeof first.loc.at(-1) === 'string') field = first.loc.at(-1);
      } else if (typeof body.message === 'string') {
        message = body.message;
      }
    } catch {
      // Not JSON (e.g. cpp-httplib's "Invalid request"): the text itself is the message.
    }
    const short = this.redact(message.replace(/\s+/g, ' ').trim()).slice(0, MAX_MESSAGE_CHARS);
    return field === undefined ? { message: short } : { message: short, field };
  }

  /** Servers quote the key back (OpenAI: "Incorrect API key provided: sk-ab***yz"); none of it goes on. */
  private redact(text: string): string {
    const { apiKey } = this.options;
    const withoutKey = apiKey ? text.split(apiKey).join('[redacted]') : text;
    return withoutKey.replace(/\bsk-[\w*.-]+/g, 'sk-[redacted]');
  }

  /** Origin only: a base URL can carry credentials in its user-info part. */
  private where(): string {
    return `The transcription server at ${this.endpoint.origin}`;
  }

  private afterAttempts(attempt: number, reason: string): string {
    return attempt === 0 ? reason : `${reason} (after ${attempt + 1} attempts)`;
  }
}

function endpointUrl(options: OpenAiCompatibleOptions): URL {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new OpenAiConfigurationError('baseUrl is not a URL (expected e.g. http://127.0.0.1:8080)');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new OpenAiConfigurationError('baseUrl must be an http:// or https:// URL');
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const path =
    options.path ?? (basePath.endsWith('/v1') ? '/audio/transcriptions' : '/v1/audio/transcriptions');
  const endpoint = new URL(base.href);
  endpoint.pathname = `${basePath}${path.startsWith('/') ? path : `/${path}`}`;
  endpoint.search = '';
  endpoint.hash = '';
  return endpoint;
}

/** `Retry-After` (seconds or an HTTP date), or OpenAI's `retry-after-ms`; undefined when absent. */
function retryAfterMs(headers: IncomingHttpHeaders): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after'];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

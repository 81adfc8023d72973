import { rm, writeFile } from 'node:fs/promises';
import {
  type Engine,
  SynthesizeSpeechCommand,
  type SynthesizeSpeechCommandOutput,
  type VoiceId,
} from '@aws-sdk/client-polly';
import { GenerationFailedError, ProviderThrottledError } from '../../ports/generation-errors.ts';
import type { SpeechSynthesizer, SynthesisLine } from '../../ports/speech-synthesizer.ts';
import { backoffMs, sleep } from '../llm/retry.ts';
import { abortError, throwIfAborted } from '../speech/abort.ts';
import { runPool } from '../speech/chunking.ts';
import { type Mp3AudioFrames, mp3AudioFrames, silentMp3Frames } from './mp3-concat.ts';
import { mp3DurationMs } from './mp3-duration.ts';
import { pollyHostVoices } from './polly-voices.ts';

/** What the synthesizer needs of `PollyClient`; tests pass a fake. */
export interface PollySynthesizeClient {
  send(
    command: SynthesizeSpeechCommand,
    options?: { abortSignal?: AbortSignal },
  ): Promise<SynthesizeSpeechCommandOutput>;
}

export type PollySampleRate = '8000' | '16000' | '22050' | '24000';

export interface PollySpeechSynthesizerOptions {
  /** Default `neural`; the voice table (`polly-voices.ts`) lists neural voices. */
  engine?: Engine;
  /** MP3 sample rate. Default `24000` (the neural default). */
  sampleRate?: PollySampleRate;
  /** Further attempts after throttling or a transient service error. Default 3. */
  maxRetries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts. Default 20 s. */
  maxDelayMs?: number;
  /** Silence between lines. Default 350 ms. */
  pauseMs?: number;
  /** SynthesizeSpeech calls in flight at once. Default 3. */
  concurrency?: number;
}

/** Polly's SynthesizeSpeech limit on (billed) characters per request. */
export const POLLY_MAX_CHARS = 3000;

/** Exceptions worth another attempt besides throttling: failures on Polly's side or the network's. */
const TRANSIENT = new Set(['ServiceFailureException', 'ServiceUnavailableException', 'InternalFailure']);
const THROTTLED = new Set(['ThrottlingException', 'TooManyRequestsException', 'Throttling']);
const NETWORK_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ECONNREFUSED', 'EAI_AGAIN']);

/**
 * Text to speech with Amazon Polly: one SynthesizeSpeech call per line (per ≤3000-character piece of a
 * longer line), the MP3 streams joined frame by frame with silent frames between lines, so no encoder
 * is needed (Lambda has no ffmpeg).
 */
export class PollySpeechSynthesizer implements SpeechSynthesizer {
  readonly name = 'polly';
  private readonly engine: Engine;
  private readonly sampleRate: PollySampleRate;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly pauseMs: number;
  private readonly concurrency: number;

  constructor(
    private readonly client: PollySynthesizeClient,
    options: PollySpeechSynthesizerOptions = {},
  ) {
    this.engine = options.engine ?? 'neural';
    this.sampleRate = options.sampleRate ?? '24000';
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 20_000;
    this.pauseMs = options.pauseMs ?? 350;
    this.concurrency = options.concurrency ?? 3;
  }

  hostVoices(language: string): [string, string] | null {
    return pollyHostVoices(language);
  }

  async synthesize(
    lines: SynthesisLine[],
    outputPath: string,
    signal?: AbortSignal,
  ): Promise<{ duration_ms: number }> {
    try {
      return await this.synthesizeOrAbort(lines, outputPath, signal);
    } catch (error) {
      throw signal?.aborted ? abortError(signal) : error;
    }
  }

  private async synthesizeOrAbort(
    lines: SynthesisLine[],
    outputPath: string,
    signal: AbortSignal | undefined,
  ): Promise<{ duration_ms: number }> {
    throwIfAborted(signal);
    const requests = lines.flatMap((line, lineIndex) =>
      splitForPolly(line.text).map((text) => ({ lineIndex, voice: line.voice, text })),
    );
    if (requests.length === 0) throw new GenerationFailedError('Nothing to synthesize: every line is empty');
    const streams = await runPool(
      requests,
      this.concurrency,
      async (request, requestSignal) => {
        const bytes = await this.call(request.voice, request.text, requestSignal);
        const frames = mp3AudioFrames(bytes);
        if (!frames)
          throw new GenerationFailedError(`Polly returned no MP3 audio for voice ${request.voice}`);
        return { lineIndex: request.lineIndex, frames };
      },
      signal,
    );
    const first = (streams[0] as { frames: Mp3AudioFrames }).frames.first;
    const parts: Buffer[] = [];
    streams.forEach(({ lineIndex, frames }, index) => {
      const { sampleRate, channels, version } = frames.first;
      if (sampleRate !== first.sampleRate || channels !== first.channels || version !== first.version) {
        throw new GenerationFailedError('Polly returned MP3 streams in different formats; cannot join them');
      }
      // Pieces of one long line follow each other directly; lines are separated by a pause.
      if (index > 0 && lineIndex !== streams[index - 1]?.lineIndex) {
        parts.push(silentMp3Frames(frames.first, this.pauseMs));
      }
      parts.push(frames.data);
    });
    const audio = Buffer.concat(parts);
    throwIfAborted(signal);
    await writeFile(outputPath, audio).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException | null)?.code ?? 'unknown error';
      throw new GenerationFailedError(`Cannot write the MP3 (${code})`, { cause: error });
    });
    if (signal?.aborted) {
      await rm(outputPath, { force: true }); // cancelled while writing: no output is left behind
      throw abortError(signal);
    }
    return { duration_ms: mp3DurationMs(audio) };
  }

  /** `signal` (the pool's: the caller's abort or another request's failure) cancels the HTTP request. */
  private async call(voice: string, text: string, signal: AbortSignal): Promise<Uint8Array> {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.client.send(
          new SynthesizeSpeechCommand({
            Engine: this.engine,
            OutputFormat: 'mp3',
            SampleRate: this.sampleRate,
            Text: text,
            TextType: 'text',
            VoiceId: voice as VoiceId,
          }),
          { abortSignal: signal },
        );
        if (!response.AudioStream) throw new GenerationFailedError('Polly returned no audio stream');
        return await response.AudioStream.transformToByteArray();
      } catch (error) {
        if (error instanceof GenerationFailedError || signal.aborted) throw error;
        const kind = classify(error);
        if (kind !== 'fatal' && attempt < this.maxRetries) {
          await sleep(backoffMs(attempt, this.baseDelayMs, this.maxDelayMs), undefined, { signal });
          continue;
        }
        const name = errorName(error);
        const tries = attempt + 1;
        // Only the exception's name: messages can echo the request (the script's text).
        if (kind === 'throttled') {
          throw new ProviderThrottledError(`Polly throttled speech synthesis (${name}, ${tries} attempts)`, {
            cause: error,
          });
        }
        const suffix = kind === 'transient' ? `, ${tries} attempts` : '';
        throw new GenerationFailedError(
          `Polly speech synthesis failed for voice ${voice} (${name}${suffix})`,
          {
            cause: error,
          },
        );
      }
    }
  }
}

/**
 * Cuts `text` into pieces of at most `maxChars` characters, at sentence boundaries where it can, else at
 * spaces, else anywhere (never inside a surrogate pair). Blank text gives no pieces.
 */
export function splitForPolly(text: string, maxChars: number = POLLY_MAX_CHARS): string[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.length <= maxChars) return [trimmed];
  const sentences = [...new Intl.Segmenter(undefined, { granularity: 'sentence' }).segment(trimmed)].map(
    (segment) => segment.segment,
  );
  const units = sentences.flatMap((sentence) =>
    sentence.length <= maxChars ? [sentence] : splitAtSpaces(sentence, maxChars),
  );
  const pieces: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current.length + unit.length > maxChars && current.trim() !== '') {
      pieces.push(current.trim());
      current = '';
    }
    current += unit;
  }
  if (current.trim() !== '') pieces.push(current.trim());
  return pieces;
}

/** A sentence longer than `maxChars`: words packed greedily, an over-long word cut. */
function splitAtSpaces(sentence: string, maxChars: number): string[] {
  const words = sentence.split(/(?<=\s)/);
  const pieces: string[] = [];
  let current = '';
  for (const word of words) {
    if (current.length + word.length > maxChars && current !== '') {
      pieces.push(current);
      current = '';
    }
    let rest = word;
    while (rest.length > maxChars) {
      const cut = cutIndex(rest, maxChars);
      pieces.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    current += rest;
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

function cutIndex(text: string, maxChars: number): number {
  const code = text.charCodeAt(maxChars - 1);
  return code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars;
}

type ErrorKind = 'throttled' | 'transient' | 'fatal';

function classify(error: unknown): ErrorKind {
  const name = errorName(error);
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  if (THROTTLED.has(name) || status === 429) return 'throttled';
  if (TRANSIENT.has(name) || (status !== undefined && status >= 500)) return 'transient';
  const code = (error as { code?: unknown } | null)?.code;
  if (name === 'TimeoutError' || (typeof code === 'string' && NETWORK_CODES.has(code))) return 'transient';
  return 'fatal';
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown error';
}

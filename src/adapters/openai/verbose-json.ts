import * as z from 'zod';
import { roundConfidence } from '../../domain/transcript-confidence.ts';
import type { RecognitionResult, RecognizedWord } from '../../ports/speech-to-text.ts';

/**
 * The `verbose_json` answer of `POST /v1/audio/transcriptions`, read leniently because the servers that
 * speak it differ:
 * - OpenAI: `{ task, language, duration, text, words?: [{ word, start, end }], segments?: [...] }`;
 *   `words` only when `timestamp_granularities[]=word` was asked for.
 * - speaches / faster-whisper-server: the same keys, but `words` (top-level and per segment) can be
 *   `null` even when words were asked for (speaches issues #379, #639).
 * - whisper.cpp server (`/inference`): no top-level `words`; each segment has `words` that are really
 *   Whisper *tokens* (sub-word pieces, with `start`/`end` only when token timestamps are on), and
 *   `start`/`end` are missing when the server runs with `--no-timestamps`.
 * Times are seconds. Unknown keys are ignored; only what the mapping reads is checked.
 *
 * Confidence: OpenAI's words carry none; faster-whisper (speaches) and whisper.cpp add `probability`
 * to each word or token, which becomes the word's confidence. Every segment has `avg_logprob`, the
 * mean log-probability of its tokens: exp(avg_logprob), clipped to 0..1, is the segment's confidence,
 * used for its words that have none of their own (never shown as a word's).
 */
const seconds = z.number().finite().nonnegative();
/** A probability some servers add; a value out of range is ignored rather than refused. */
const probability = z.number().finite().nullish();

const timedWord = z.object({ word: z.string(), start: seconds, end: seconds, probability });

const segmentWord = z.object({
  word: z.string(),
  start: seconds.optional(),
  end: seconds.optional(),
  probability,
});

const segment = z.object({
  text: z.string(),
  start: seconds.optional(),
  end: seconds.optional(),
  words: z.array(segmentWord).nullish(),
  avg_logprob: z.number().finite().nullish(),
  no_speech_prob: z.number().finite().nullish(),
});

export const verboseJsonSchema = z.object({
  // Older OpenAPI descriptions of this object typed `duration` as a string; accept both.
  duration: z
    .union([
      seconds,
      z
        .string()
        .regex(/^\d+(\.\d+)?$/)
        .transform(Number),
    ])
    .nullish(),
  text: z.string().nullish(),
  words: z.array(timedWord).nullish(),
  segments: z.array(segment).nullish(),
});

export type VerboseJson = z.infer<typeof verboseJsonSchema>;
type Segment = z.infer<typeof segment>;

/** The body did not have the `verbose_json` shape. Says where, never what (it may hold transcript text). */
export class InvalidVerboseJsonError extends Error {
  override readonly name = 'InvalidVerboseJsonError';
}

export function parseVerboseJson(body: unknown): VerboseJson {
  const parsed = verboseJsonSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  throw new InvalidVerboseJsonError(`The response is not verbose_json (${where})`);
}

/**
 * Maps a verbose_json answer to words with millisecond times, using the best timing it has:
 * 1. top-level `words` (real word timestamps);
 * 2. each segment's `words` when they carry times (faster-whisper words, whisper.cpp tokens, glued
 *    back into words);
 * 3. otherwise each segment's text spread evenly over the segment, one equal slot per word. That is an
 *    approximation: real words differ in length and pauses fall between them, so a word can be off by
 *    up to a segment's length (Whisper segments are usually under 30 s, often a few seconds);
 * 4. without timed segments at all, the whole `text` spread over the recording (coarser still).
 * `duration_ms` is `duration` when given, else the end of the last word; no word ends after it.
 */
export function recognitionFromVerboseJson(body: VerboseJson): RecognitionResult {
  const segments = body.segments ?? [];
  const silent = segments.filter(isSilence);
  const words = pickWords(body)
    .filter((word) => !silent.some((s) => within(word, s)))
    .map((word) => withSpanConfidence(word, segments));
  const lastEnd = words.reduce((latest, word) => Math.max(latest, word.end_ms), 0);
  const duration_ms = body.duration != null ? toMs(body.duration) : lastEnd;
  // Every segment was silence by Whisper's own test: the words were invented.
  const noSpeech = silent.length > 0 && silent.length === segments.length;
  if (noSpeech) return { words: [], duration_ms, notice: 'no_speech' };
  return { words: words.map((word) => clamp(word, duration_ms)), duration_ms };
}

/**
 * Whisper's own no-speech rule (openai/whisper `transcribe`, defaults `no_speech_threshold` 0.6 and
 * `logprob_threshold` -1): a segment the model thinks is probably silence and is unsure of is skipped.
 * Servers that run the rule leave such segments out already; this catches those that do not.
 */
const NO_SPEECH_PROB_ABOVE = 0.6;
const AVG_LOGPROB_BELOW = -1;

function isSilence(s: Segment): boolean {
  return (
    s.no_speech_prob != null &&
    s.avg_logprob != null &&
    s.no_speech_prob > NO_SPEECH_PROB_ABOVE &&
    s.avg_logprob < AVG_LOGPROB_BELOW &&
    s.start !== undefined &&
    s.end !== undefined
  );
}

/** Whether the word's middle falls inside the segment's times. */
function within(word: RecognizedWord, s: Segment): boolean {
  const middle = (word.start_ms + word.end_ms) / 2;
  return s.start !== undefined && s.end !== undefined && middle >= toMs(s.start) && middle <= toMs(s.end);
}

/** exp(avg_logprob) of the segment the word falls in, when it has one. */
function withSpanConfidence(word: RecognizedWord, segments: readonly Segment[]): RecognizedWord {
  const home = segments.find((s) => s.avg_logprob != null && within(word, s)) ?? onlySegment(segments);
  if (home?.avg_logprob == null) return word;
  return { ...word, span_confidence: roundConfidence(Math.exp(home.avg_logprob)) };
}

/** Without segment times, a lone segment still covers every word. */
function onlySegment(segments: readonly Segment[]): Segment | undefined {
  const [only] = segments;
  return segments.length === 1 && only?.start === undefined ? only : undefined;
}

function pickWords(body: VerboseJson): RecognizedWord[] {
  if (body.words && body.words.length > 0) {
    return body.words.flatMap(({ word, start, end, probability }) => {
      // Whisper writes a word with its leading space (" Hello,"); the transcript wants bare words.
      const text = word.trim();
      return text ? [withProbability(timed(text, start, end), probability)] : [];
    });
  }
  const segments = body.segments ?? [];
  if (segments.length > 0 && segments.every((s) => s.start !== undefined && s.end !== undefined)) {
    return segments.flatMap((s) => segmentWords(s) ?? spread(s.text, s.start ?? 0, s.end ?? 0));
  }
  const text = body.text ?? segments.map((s) => s.text).join(' ');
  return body.duration != null ? spread(text, 0, Number(body.duration)) : [];
}

/** Tokens such as `[_BEG_]` or `<|endoftext|>` that a server may leave among the words. */
const SPECIAL_TOKEN = /^(\[_[^\]]*\]|<\|[^|]*\|>)$/;

/**
 * Words of a segment's own `words` list, or undefined when it has none with times. A piece that does
 * not start with a space continues the previous word: whisper.cpp lists tokens (" trans", "cribed",
 * ","), which this glues back into " transcribed,"; faster-whisper's words all start with a space, so
 * they pass unchanged.
 */
function segmentWords(s: Segment): RecognizedWord[] | undefined {
  const pieces = (s.words ?? []).filter(
    (piece) => piece.start !== undefined && piece.end !== undefined && !SPECIAL_TOKEN.test(piece.word.trim()),
  );
  if (pieces.length === 0) return undefined;
  const words: RecognizedWord[] = [];
  // The probabilities of each word's pieces: a glued word gets their mean, as faster-whisper scores
  // a word by the mean of its tokens' probabilities.
  const probabilities: number[][] = [];
  for (const piece of pieces) {
    const start = piece.start ?? 0;
    const end = piece.end ?? start;
    const previous = words.at(-1);
    if (previous && !/^\s/.test(piece.word)) {
      previous.text += piece.word.trimEnd();
      previous.end_ms = Math.max(previous.end_ms, toMs(end));
      if (piece.probability != null) probabilities.at(-1)?.push(piece.probability);
    } else if (piece.word.trim()) {
      words.push(timed(piece.word.trim(), start, end));
      probabilities.push(piece.probability == null ? [] : [piece.probability]);
    }
  }
  return words.map((word, i) => {
    const scores = probabilities[i] ?? [];
    const mean = scores.length > 0 ? scores.reduce((sum, p) => sum + p, 0) / scores.length : undefined;
    return withProbability(word, mean);
  });
}

function withProbability(word: RecognizedWord, probability: number | null | undefined): RecognizedWord {
  if (probability == null || !(probability >= 0 && probability <= 1)) return word;
  return { ...word, confidence: roundConfidence(probability) };
}

/** Splits `text` into words and gives each an equal share of `[start, end]` seconds. */
function spread(text: string, start: number, end: number): RecognizedWord[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const slot = Math.max(0, end - start) / Math.max(1, tokens.length);
  return tokens.map((token, index) => timed(token, start + slot * index, start + slot * (index + 1)));
}

function timed(text: string, start: number, end: number): RecognizedWord {
  const start_ms = toMs(start);
  return { text, start_ms, end_ms: Math.max(start_ms, toMs(end)) };
}

function toMs(secondsValue: number): number {
  return Math.round(secondsValue * 1000);
}

function clamp(word: RecognizedWord, durationMs: number): RecognizedWord {
  if (word.end_ms <= durationMs) return word;
  return { ...word, start_ms: Math.min(word.start_ms, durationMs), end_ms: durationMs };
}

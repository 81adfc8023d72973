import * as z from 'zod';
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
 */
const seconds = z.number().finite().nonnegative();

const timedWord = z.object({ word: z.string(), start: seconds, end: seconds });

const segmentWord = z.object({ word: z.string(), start: seconds.optional(), end: seconds.optional() });

const segment = z.object({
  text: z.string(),
  start: seconds.optional(),
  end: seconds.optional(),
  words: z.array(segmentWord).nullish(),
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
  const words = pickWords(body);
  const lastEnd = words.reduce((latest, word) => Math.max(latest, word.end_ms), 0);
  const duration_ms = body.duration != null ? toMs(body.duration) : lastEnd;
  return { words: words.map((word) => clamp(word, duration_ms)), duration_ms };
}

function pickWords(body: VerboseJson): RecognizedWord[] {
  if (body.words && body.words.length > 0) {
    return body.words.flatMap(({ word, start, end }) => {
      // Whisper writes a word with its leading space (" Hello,"); the transcript wants bare words.
      const text = word.trim();
      return text ? [timed(text, start, end)] : [];
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
  for (const piece of pieces) {
    const start = piece.start ?? 0;
    const end = piece.end ?? start;
    const previous = words.at(-1);
    if (previous && !/^\s/.test(piece.word)) {
      previous.text += piece.word.trimEnd();
      previous.end_ms = Math.max(previous.end_ms, toMs(end));
    } else if (piece.word.trim()) {
      words.push(timed(piece.word.trim(), start, end));
    }
  }
  return words;
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

import * as z from 'zod';
import type { RecognitionResult, RecognizedWord } from '../../ports/speech-to-text.ts';

/**
 * Reads the JSON document an Amazon Transcribe batch job writes to S3 (shape: AWS developer guide,
 * "Example diarization output (batch)"). Only the fields read here are validated; the rest is ignored.
 */

/** Thrown when the document is not a Transcribe output; retrying the same document cannot help. */
export class MalformedTranscribeOutputError extends Error {
  override readonly name = 'MalformedTranscribeOutputError';
}

/**
 * Seconds as Transcribe writes them: a decimal string ("4.87"). Numbers are accepted too because
 * LocalStack, the local stand-in, writes them unquoted.
 */
const seconds = z.union(
  [
    z.number().nonnegative(),
    z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .transform(Number),
  ],
  { error: 'expected seconds as a decimal string such as "4.87"' },
);

const alternative = z.object({
  content: z.string(),
  confidence: z.union([z.string(), z.number()]).optional(),
});

const pronunciation = z
  .object({
    type: z.literal('pronunciation'),
    start_time: seconds,
    end_time: seconds,
    alternatives: z.array(alternative).min(1),
    speaker_label: z.string().optional(),
  })
  .refine((item) => item.end_time >= item.start_time, 'end_time is before start_time');

/** Punctuation carries no times: it belongs to the word before it. */
const punctuation = z.object({
  type: z.literal('punctuation'),
  alternatives: z.array(alternative).min(1),
});

const timedLabel = z.object({ start_time: seconds, end_time: seconds, speaker_label: z.string() });

const outputSchema = z.object({
  results: z.object({
    items: z.array(z.discriminatedUnion('type', [pronunciation, punctuation])),
    /** Present when speaker labels were requested; the only speaker source in older outputs. */
    speaker_labels: z
      .object({ segments: z.array(timedLabel.extend({ items: z.array(timedLabel) })) })
      .optional(),
  }),
});

type Output = z.infer<typeof outputSchema>;
type Alternative = z.infer<typeof alternative>;

export function parseTranscribeOutput(json: unknown): RecognitionResult {
  const parsed = outputSchema.safeParse(json);
  if (!parsed.success) {
    throw new MalformedTranscribeOutputError(
      `Not a Transcribe output document:\n${z.prettifyError(parsed.error)}`,
    );
  }
  const { items, speaker_labels } = parsed.data.results;
  const speakerAt = speakerLookup(speaker_labels?.segments ?? []);

  const words: RecognizedWord[] = [];
  for (const item of items) {
    const text = best(item.alternatives).content;
    if (item.type === 'punctuation') {
      const previous = words.at(-1);
      // Leading punctuation has nothing to attach to and would read as a stray mark.
      if (previous) previous.text += text;
      continue;
    }
    const start_ms = toMs(item.start_time);
    const end_ms = toMs(item.end_time);
    const label = item.speaker_label ?? speakerAt(start_ms, end_ms);
    const confidence = confidenceOf(best(item.alternatives));
    words.push({
      text,
      start_ms,
      end_ms,
      ...(label ? { speaker: speakerName(label) } : {}),
      ...(confidence === undefined ? {} : { confidence }),
    });
  }

  // Transcribe reports no media duration; the latest timestamp is the best lower bound it gives.
  // reduce, not Math.max(...spread): a 4-hour recording has tens of thousands of words.
  const lastWordEnd = words.reduce((max, word) => Math.max(max, word.end_ms), 0);
  const duration_ms = (speaker_labels?.segments ?? []).reduce(
    (max, segment) => Math.max(max, toMs(segment.end_time)),
    lastWordEnd,
  );
  return { words, duration_ms };
}

/** `spk_0` → `Speaker 1`, matching the 1-based names the local engine uses; other labels pass through. */
export function speakerName(label: string): string {
  const match = /^spk_(\d+)$/.exec(label);
  return match ? `Speaker ${Number(match[1]) + 1}` : label;
}

function toMs(secondsValue: number): number {
  return Math.round(secondsValue * 1000);
}

/**
 * A pronunciation's confidence, 0..1, as Transcribe writes it ("0.998"); undefined when absent or not
 * a number in range. (Punctuation items carry "0.0", which says nothing: they are not words.)
 */
function confidenceOf(alternative: Alternative): number | undefined {
  if (alternative.confidence === undefined) return undefined;
  const value = Number(alternative.confidence);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
}

/** Highest confidence wins; the first alternative on ties or when confidences are missing. */
function best(alternatives: Alternative[]): Alternative {
  const score = (alt: Alternative) => {
    const value = Number(alt.confidence);
    return Number.isFinite(value) ? value : Number.NEGATIVE_INFINITY;
  };
  return alternatives.reduce((top, alt) => (score(alt) > score(top) ? alt : top));
}

type Segments = NonNullable<Output['results']['speaker_labels']>['segments'];

/**
 * Older outputs put speakers only in `speaker_labels.segments[].items`, keyed by the word's times.
 * A word with no exact entry falls back to the segment that contains it.
 */
function speakerLookup(segments: Segments): (start_ms: number, end_ms: number) => string | undefined {
  const byTimes = new Map<string, string>();
  for (const segment of segments) {
    for (const item of segment.items) {
      byTimes.set(`${toMs(item.start_time)}-${toMs(item.end_time)}`, item.speaker_label);
    }
  }
  return (start_ms, end_ms) =>
    byTimes.get(`${start_ms}-${end_ms}`) ??
    segments.find((segment) => toMs(segment.start_time) <= start_ms && end_ms <= toMs(segment.end_time))
      ?.speaker_label;
}

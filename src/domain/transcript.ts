import type { RecognizedWord } from '../ports/speech-to-text.ts';

/** A stretch of speech by one speaker, the unit that notes cite. */
export interface ConversationSegment {
  start_ms: number;
  end_ms: number;
  speaker: string;
  text: string;
  /** True when another speaker's segment overlaps this one in time (cross-talk). */
  has_overlap: boolean;
}

export interface Transcription {
  full_text: string;
  /** One `[HH:MM:SS] Speaker: text` line per segment. */
  timestamped_full_text: string;
  conversation_segments: ConversationSegment[];
  duration_ms: number;
  language: string;
  engine: string;
}

export interface BuildTranscriptionOptions {
  duration_ms: number;
  engine: string;
  language: string;
}

export const DEFAULT_SPEAKER = 'Speaker 1';
/** A pause this long reads as the end of a thought. */
export const SEGMENT_PAUSE_MS = 800;
/** Long monologues are still cut so that a segment stays a citable, readable unit. */
export const SEGMENT_MAX_MS = 30_000;

interface OpenSegment {
  start_ms: number;
  end_ms: number;
  speaker: string;
  words: string[];
}

/** Turns recognised words into readable text and segments. Pure: no I/O. */
export function buildTranscription(words: RecognizedWord[], opts: BuildTranscriptionOptions): Transcription {
  const usable = words
    .map((word) => ({ ...word, text: word.text.trim() }))
    .filter((word) => word.text !== '')
    .sort((a, b) => a.start_ms - b.start_ms || a.end_ms - b.end_ms);
  // An unknown (0) duration must not squash every segment to nothing; fall back to the last word.
  const duration_ms =
    opts.duration_ms > 0 ? opts.duration_ms : usable.reduce((max, word) => Math.max(max, word.end_ms), 0);

  const segments = markOverlaps(
    groupWords(usable).map((open) => ({ ...boundsWithin(open, duration_ms), ...finish(open) })),
  );
  return {
    full_text: segments.map((segment) => segment.text).join(' '),
    timestamped_full_text: segments.map(timestampedLine).join('\n'),
    conversation_segments: segments,
    duration_ms,
    language: opts.language,
    engine: opts.engine,
  };
}

function groupWords(words: RecognizedWord[]): OpenSegment[] {
  const groups: OpenSegment[] = [];
  let current: OpenSegment | undefined;
  for (const word of words) {
    const speaker = word.speaker ?? DEFAULT_SPEAKER;
    const breaks =
      !current ||
      current.speaker !== speaker ||
      word.start_ms - current.end_ms >= SEGMENT_PAUSE_MS ||
      current.end_ms - current.start_ms >= SEGMENT_MAX_MS;
    if (breaks || !current) {
      current = { start_ms: word.start_ms, end_ms: word.end_ms, speaker, words: [] };
      groups.push(current);
    }
    current.words.push(word.text);
    current.end_ms = Math.max(current.end_ms, word.end_ms);
  }
  return groups;
}

/** Clamps into [0, duration] and keeps start < end, so consumers can rely on a non-empty range. */
function boundsWithin(open: OpenSegment, durationMs: number): { start_ms: number; end_ms: number } {
  const last = Math.max(1, durationMs);
  const start_ms = Math.min(Math.max(0, open.start_ms), last - 1);
  const end_ms = Math.min(Math.max(start_ms + 1, open.end_ms), last);
  return { start_ms, end_ms };
}

function finish(open: OpenSegment): { speaker: string; text: string; has_overlap: boolean } {
  return { speaker: open.speaker, text: toSentence(open.words), has_overlap: false };
}

/** The recogniser emits lower-case words without punctuation; make each segment read as a sentence. */
export function toSentence(words: string[]): string {
  const text = words.map((word) => (/^i('|$)/.test(word) ? `I${word.slice(1)}` : word)).join(' ');
  const capitalised = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

/** Segments are sorted by start, so only later segments that start before this one ends can overlap. */
function markOverlaps(segments: ConversationSegment[]): ConversationSegment[] {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as ConversationSegment;
    for (let j = i + 1; j < segments.length; j++) {
      const other = segments[j] as ConversationSegment;
      if (other.start_ms >= segment.end_ms) break;
      if (other.speaker !== segment.speaker) {
        segment.has_overlap = true;
        other.has_overlap = true;
      }
    }
  }
  return segments;
}

/** One line of `timestamped_full_text`: `[HH:MM:SS] Speaker: text`. */
export function timestampedLine(segment: ConversationSegment): string {
  return `[${formatTimestamp(segment.start_ms)}] ${segment.speaker}: ${segment.text}`;
}

/** `HH:MM:SS`, hours not wrapped at 24 (recordings longer than a day are not a concern). */
export function formatTimestamp(ms: number): string {
  const totalSeconds = Math.floor(Math.max(0, ms) / 1000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}`;
}

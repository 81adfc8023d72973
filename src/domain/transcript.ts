import type { RecognitionNotice, RecognizedWord } from '../ports/speech-to-text.ts';
import {
  meanConfidence,
  noticeFor,
  type TranscriptNotice,
  transcriptConfidence,
} from './transcript-confidence.ts';

/** A stretch of speech by one speaker, the unit that notes cite. */
export interface ConversationSegment {
  start_ms: number;
  end_ms: number;
  /**
   * Stored: the engine's label (`Speaker 1`). In the API's views: the name the user gave that label
   * (updateNote `speaker_names`), else the label; the label itself is then in `speaker_label`.
   */
  speaker: string;
  /** Views only: the stable label behind `speaker`, which names and set_speaker refer to. */
  speaker_label?: string;
  text: string;
  /** True when another speaker's segment overlaps this one in time (cross-talk). */
  has_overlap: boolean;
  /**
   * The segment's words with their times, one per whitespace-separated token of `text`, when the
   * recogniser gave them (absent on transcripts stored before words were kept). Kept in storage so
   * an edit keeps the timings of the words it did not change; shown by getTranscription.
   */
  words?: TimedWord[];
  /** 0..1, the duration-weighted mean of its words' (transcript-confidence.ts); null when unscored. */
  confidence?: number | null;
}

/** A word of a segment and when it was spoken (ms from the start of the recording). */
export interface TimedWord {
  text: string;
  start_ms: number;
  end_ms: number;
  /** 0..1 from the engine, or 1 for a word a person typed; absent when the engine gave none. */
  confidence?: number;
  /** The engine's confidence in the stretch the word came in (whisper segments); internal. */
  span_confidence?: number;
}

export interface Transcription {
  full_text: string;
  /** One `[HH:MM:SS] Speaker: text` line per segment. */
  timestamped_full_text: string;
  conversation_segments: ConversationSegment[];
  duration_ms: number;
  language: string;
  engine: string;
  /** Which revision this is: 0 is the recogniser's own output, each correction adds one. */
  revision?: number;
  /** When the revision was made (epoch ms); null for the recogniser's output. */
  edited_at?: number | null;
  /** Which recogniser run it descends from (the job's `recognition`); internal, never shown. */
  recognition?: string;
  /** 0..1 over all words, derived from the segments; null when the engine scores nothing. */
  confidence?: number | null;
  /** The recogniser heard no speech, or could not follow it; kept through corrections. */
  notice?: TranscriptNotice | null;
  /** RecognitionResult.speakers_by: what told the speakers apart (the local diarizer's method). */
  speakers_by?: string;
}

/** What a transcript is besides its segments and what is derived from them. */
export type TranscriptMeta = Omit<
  Transcription,
  'full_text' | 'timestamped_full_text' | 'conversation_segments' | 'confidence'
>;

export interface BuildTranscriptionOptions {
  duration_ms: number;
  engine: string;
  language: string;
  /** What the engine found about the recording as a whole (RecognitionResult.notice). */
  notice?: RecognitionNotice | undefined;
  /** RecognitionResult.fallback: a fallback engine made the transcript, and why. */
  fallback?: string | undefined;
  speakers_by?: string | undefined;
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
  words: TimedWord[];
}

/**
 * Turns recognised words into readable text and segments. Pure: no I/O. A recording the engine found
 * no speech in, or that has no words, has no segments and a `no_speech` notice: nothing is invented.
 */
export function buildTranscription(words: RecognizedWord[], opts: BuildTranscriptionOptions): Transcription {
  const heard = opts.notice === 'no_speech' ? [] : words;
  const usable = heard
    .map((word) => ({ ...word, text: word.text.trim() }))
    .filter((word) => word.text !== '')
    .sort((a, b) => a.start_ms - b.start_ms || a.end_ms - b.end_ms);
  // An unknown (0) duration must not squash every segment to nothing; fall back to the last word.
  const duration_ms =
    opts.duration_ms > 0 ? opts.duration_ms : usable.reduce((max, word) => Math.max(max, word.end_ms), 0);

  const segments = groupWords(usable).map((open) => ({
    ...boundsWithin(open, duration_ms),
    ...finish(open),
  }));
  const code = segments.length === 0 ? 'no_speech' : opts.notice;
  // No speech says more than which engine heard it; a fallback explains any low confidence.
  const notice =
    code !== 'no_speech' && opts.fallback
      ? ({ code: 'engine_fallback', detail: opts.fallback } as const)
      : code
        ? noticeFor(code, transcriptConfidence(segments))
        : null;
  const speakersBy = opts.speakers_by && segments.length > 0 ? { speakers_by: opts.speakers_by } : {};
  return withSegments(
    { duration_ms, language: opts.language, engine: opts.engine, notice, ...speakersBy },
    segments,
  );
}

/**
 * The transcript made of these segments: overlaps marked, `full_text` and `timestamped_full_text`
 * derived from them. The one place those are derived, for the recogniser's output and for edits.
 */
export function withSegments(base: TranscriptMeta, segments: ConversationSegment[]): Transcription {
  const marked = markOverlaps(
    segments.map((segment) => ({ ...segment, has_overlap: false, ...scored(segment) })),
  );
  return {
    ...base,
    full_text: marked.map((segment) => segment.text).join(' '),
    timestamped_full_text: marked.map(timestampedLine).join('\n'),
    conversation_segments: marked,
    confidence: transcriptConfidence(marked),
  };
}

/** A segment's confidence comes from its words; one stored without words keeps what it had. */
export function scored(segment: ConversationSegment): Pick<ConversationSegment, 'confidence'> {
  if (segment.words) return { confidence: meanConfidence(segment.words) };
  return segment.confidence === undefined ? {} : { confidence: segment.confidence };
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
    current.words.push(timedWord(word));
    current.end_ms = Math.max(current.end_ms, word.end_ms);
  }
  return groups;
}

/** What a segment keeps of a recognised word: its text, times and confidences. */
function timedWord(word: RecognizedWord): TimedWord {
  const { text, start_ms, end_ms, confidence, span_confidence } = word;
  return {
    text,
    start_ms,
    end_ms,
    ...(confidence === undefined ? {} : { confidence }),
    ...(span_confidence === undefined ? {} : { span_confidence }),
  };
}

/** Clamps into [0, duration] and keeps start < end, so consumers can rely on a non-empty range. */
function boundsWithin(open: OpenSegment, durationMs: number): { start_ms: number; end_ms: number } {
  const last = Math.max(1, durationMs);
  const start_ms = Math.min(Math.max(0, open.start_ms), last - 1);
  const end_ms = Math.min(Math.max(start_ms + 1, open.end_ms), last);
  return { start_ms, end_ms };
}

/** One stored word per token of the text, so that edits can line the two up. */
function finish(open: OpenSegment): Pick<ConversationSegment, 'speaker' | 'text' | 'has_overlap' | 'words'> {
  const words = open.words.flatMap((word) => spreadTokens(word));
  return {
    speaker: open.speaker,
    text: toSentence(words.map((word) => word.text)),
    has_overlap: false,
    words,
  };
}

/** A recognised "word" with spaces in it (a phrase some engines emit) becomes one word per token. */
function spreadTokens(word: TimedWord): TimedWord[] {
  const tokens = word.text.split(/\s+/).filter((token) => token !== '');
  if (tokens.length <= 1) return [word];
  const step = (word.end_ms - word.start_ms) / tokens.length;
  // Each token of the phrase inherits the phrase's confidence.
  return tokens.map((text, i) => ({
    ...word,
    text,
    start_ms: Math.round(word.start_ms + step * i),
    end_ms: Math.round(word.start_ms + step * (i + 1)),
  }));
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

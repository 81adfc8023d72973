import type { SpeakerNames } from './speaker-labels.ts';
import {
  type ConversationSegment,
  formatTimestamp,
  type Transcription,
  timestampedLine,
} from './transcript.ts';
import type { TranscriptNotice } from './transcript-confidence.ts';
import { tokensOf } from './transcript-words.ts';

export type { SpeakerNames } from './speaker-labels.ts';

/** Formats a transcript can be read in besides JSON (getTranscription `format`). */
export const TRANSCRIPT_FORMATS = {
  json: 'application/json; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
} as const;

export type TranscriptFormat = keyof typeof TRANSCRIPT_FORMATS;

/**
 * The transcript as the user sees it: each segment's `speaker` is the name the user gave its label,
 * else the label, and `speaker_label` is the label. The stored transcript keeps the labels, so
 * renaming never rewrites results.
 */
export function withSpeakerNames(
  transcription: Transcription,
  names: SpeakerNames | undefined,
): Transcription {
  const segments = transcription.conversation_segments.map((segment) => {
    const name = names?.[segment.speaker];
    // Names stored before line breaks were refused must not split a line of the timestamped text.
    return {
      ...segment,
      speaker: name === undefined ? segment.speaker : oneLine(name),
      speaker_label: segment.speaker,
    };
  });
  return {
    ...transcription,
    conversation_segments: segments,
    timestamped_full_text: segments.map(timestampedLine).join('\n'),
  };
}

/** A word as the API shows it (TranscriptWord in openapi.yaml). */
export interface WordView {
  text: string;
  start_ms: number;
  end_ms: number;
  confidence: number | null;
}

export interface SegmentView extends Omit<ConversationSegment, 'words' | 'confidence'> {
  confidence: number | null;
  words?: WordView[];
}

export interface TranscriptionView
  extends Omit<Transcription, 'conversation_segments' | 'confidence' | 'notice' | 'recognition'> {
  conversation_segments: SegmentView[];
  confidence: number | null;
  notice: TranscriptNotice | null;
}

/**
 * The transcript as the API shows it (getTranscription, getNote, corrections): speaker names applied
 * beside their labels, which revision it is, how sure the recogniser was, and each segment's words
 * with their times and confidences. getNote leaves the words out (`words: false`): they triple the
 * size of a long transcript, and getTranscription is where a client reads them.
 */
export function transcriptionView(
  transcription: Transcription,
  names: SpeakerNames | undefined,
  options: { words: boolean } = { words: true },
): TranscriptionView {
  const named = withSpeakerNames(transcription, names);
  return {
    full_text: named.full_text,
    timestamped_full_text: named.timestamped_full_text,
    conversation_segments: named.conversation_segments.map((segment) => segmentView(segment, options.words)),
    duration_ms: named.duration_ms,
    language: named.language,
    engine: named.engine,
    ...(named.speakers_by ? { speakers_by: named.speakers_by } : {}),
    revision: named.revision ?? 0,
    edited_at: named.edited_at ?? null,
    // Transcripts stored before confidences were kept read as unscored, without a notice.
    confidence: named.confidence ?? null,
    notice: named.notice ?? null,
  };
}

function segmentView(
  { words, confidence, ...segment }: ConversationSegment,
  withWords: boolean,
): SegmentView {
  const view: SegmentView = { ...segment, confidence: confidence ?? null };
  if (withWords && words) {
    // Stored words are the recogniser's ("the"); shown, each is its token of the text ("The").
    const tokens = tokensOf(segment.text);
    const shown = tokens.length === words.length ? tokens : words.map((word) => word.text);
    view.words = words.map(({ start_ms, end_ms, confidence: word }, i) => ({
      text: shown[i] ?? '',
      start_ms,
      end_ms,
      confidence: word ?? null,
    }));
  }
  return view;
}

/** What the text formats read of a transcript: the stored one or its view. */
export interface RenderableTranscript {
  conversation_segments: readonly Pick<ConversationSegment, 'start_ms' | 'end_ms' | 'speaker' | 'text'>[];
}

/** SubRip: numbered cues, `HH:MM:SS,mmm` times, the speaker before the text. */
export function toSrt(transcription: RenderableTranscript): string {
  return transcription.conversation_segments
    .map(
      (segment, i) =>
        `${i + 1}\n${cueTime(segment.start_ms, ',')} --> ${cueTime(segment.end_ms, ',')}\n${cueText(segment.speaker)}: ${cueText(segment.text)}\n`,
    )
    .join('\n');
}

/** WebVTT with voice spans (`<v Speaker>`), which players show as the speaker. */
export function toVtt(transcription: RenderableTranscript): string {
  const cues = transcription.conversation_segments.map(
    (segment) =>
      `${cueTime(segment.start_ms, '.')} --> ${cueTime(segment.end_ms, '.')}\n<v ${escapeVtt(cueText(segment.speaker))}>${escapeVtt(cueText(segment.text))}\n`,
  );
  return ['WEBVTT\n', ...cues].join('\n');
}

/** Markdown: a heading, then one paragraph per segment with its speaker and start time. */
export function toMarkdown(transcription: RenderableTranscript, title: string): string {
  const paragraphs = transcription.conversation_segments.map(
    (segment) =>
      `**${escapeMarkdown(oneLine(segment.speaker))}** [${formatTimestamp(segment.start_ms)}]: ${oneLine(segment.text)}`,
  );
  return `# ${escapeMarkdown(oneLine(title))}\n\n${paragraphs.join('\n\n')}\n`;
}

export function renderTranscript(
  transcription: RenderableTranscript,
  format: Exclude<TranscriptFormat, 'json'>,
  title: string,
) {
  if (format === 'srt') return toSrt(transcription);
  if (format === 'vtt') return toVtt(transcription);
  return toMarkdown(transcription, title);
}

function cueTime(ms: number, separator: ',' | '.'): string {
  return `${formatTimestamp(ms)}${separator}${String(Math.max(0, Math.round(ms)) % 1000).padStart(3, '0')}`;
}

/** Line breaks and other control characters: they would end a cue, a paragraph or a heading early. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const LINE_BREAKING = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g;

/** One line of text: line breaks and other control characters become a space. */
function oneLine(text: string): string {
  return text.replace(LINE_BREAKING, ' ');
}

/** Text that stays inside its cue: one line, and no `-->` that a player would read as a cue's timing. */
function cueText(text: string): string {
  return oneLine(text).replace(/-{2,}>/g, '->');
}

/** Characters that make Markdown emphasis, links, HTML or headings, shown literally instead. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#~|&]/g, '\\$&');
}

/** `<`, `>` and `&` start markup in WebVTT cue text. */
function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

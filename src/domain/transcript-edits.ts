import { UnprocessableError } from './errors.ts';
import { type ConversationSegment, scored } from './transcript.ts';
import { retime, timedWordsOf, tokensOf } from './transcript-words.ts';

/**
 * Corrections of a transcript's segments, applied in order, each to the result of the ones before
 * it. Pure: no I/O. A correction that cannot apply throws UnprocessableError naming it, so a list is
 * applied whole or not at all. Segments are addressed by their index in the revision the request was
 * made against (the caller makes sure of that with If-Match).
 */
export type TranscriptEdit =
  | { op: 'replace_text'; segment: number; text: string }
  | { op: 'set_speaker'; segment: number; speaker: string }
  | { op: 'set_speakers'; segments: number[]; speaker: string }
  | { op: 'merge'; segment: number }
  | { op: 'split'; segment: number; at_word?: number | undefined; at_ms?: number | undefined }
  | { op: 'merge_speakers'; speaker: string; into: string };

/**
 * Maps a speaker as the user wrote it to the label stored (a display name back to its label); throws
 * UnprocessableError, naming the edit, for one it cannot map.
 */
export type SpeakerLabelOf = (speaker: string, edit: string) => string;

export function applyEdits(
  segments: readonly ConversationSegment[],
  edits: readonly TranscriptEdit[],
  labelOf: SpeakerLabelOf,
): ConversationSegment[] {
  return edits.reduce<ConversationSegment[]>(
    (current, edit, i) => applyEdit(current, edit, labelOf, `edits[${i}] (${edit.op})`),
    [...segments],
  );
}

function applyEdit(
  segments: ConversationSegment[],
  edit: TranscriptEdit,
  labelOf: SpeakerLabelOf,
  name: string,
): ConversationSegment[] {
  if (edit.op === 'merge_speakers') return mergeSpeakers(segments, edit, labelOf, name);
  if (edit.op === 'set_speakers') return setSpeakers(segments, edit, labelOf, name);
  const target = segmentAt(segments, edit.segment, name);
  const replace = (...replacement: ConversationSegment[]) => [
    ...segments.slice(0, edit.segment),
    // Changed words change the segment's confidence.
    ...replacement.map((segment) => ({ ...segment, ...scored(segment) })),
    ...segments.slice(edit.segment + (edit.op === 'merge' ? 2 : 1)),
  ];
  switch (edit.op) {
    case 'replace_text':
      return replace(withText(target, oneSpaced(edit.text)));
    case 'set_speaker':
      return replace({ ...target, speaker: labelOf(oneSpaced(edit.speaker), name) });
    case 'merge': {
      const next = segments[edit.segment + 1];
      if (!next) {
        throw new UnprocessableError(
          `${name}: segment ${edit.segment} is the last one; merge joins a segment with the one after it`,
        );
      }
      return replace(merged(target, next));
    }
    case 'split':
      return replace(...split(target, edit, name));
  }
}

/**
 * One person the diarizer heard as two (a voice that changed with what it said): every segment of
 * `speaker` becomes `into`'s, in one correction that one undo takes back.
 */
function mergeSpeakers(
  segments: ConversationSegment[],
  edit: { speaker: string; into: string },
  labelOf: SpeakerLabelOf,
  name: string,
): ConversationSegment[] {
  const from = labelOf(oneSpaced(edit.speaker), name);
  const into = labelOf(oneSpaced(edit.into), name);
  if (!segments.some((segment) => segment.speaker === from)) {
    throw new UnprocessableError(`${name}: no segment is spoken by "${edit.speaker}"`);
  }
  if (from === into) {
    throw new UnprocessableError(`${name}: "${edit.speaker}" and "${edit.into}" are the same speaker`);
  }
  return segments.map((segment) => (segment.speaker === from ? { ...segment, speaker: into } : segment));
}

/**
 * Several segments given to one speaker at once: a range ("from here to the next change", several
 * selected) or the segments findSimilarSegments proposed; one correction, one undo.
 */
function setSpeakers(
  segments: ConversationSegment[],
  edit: { segments: number[]; speaker: string },
  labelOf: SpeakerLabelOf,
  name: string,
): ConversationSegment[] {
  for (const index of edit.segments) segmentAt(segments, index, name);
  const speaker = labelOf(oneSpaced(edit.speaker), name);
  const chosen = new Set(edit.segments);
  return segments.map((segment, index) => (chosen.has(index) ? { ...segment, speaker } : segment));
}

export function segmentAt(
  segments: readonly ConversationSegment[],
  index: number,
  name: string,
): ConversationSegment {
  const segment = segments[index];
  if (!segment) {
    throw new UnprocessableError(
      `${name}: there is no segment ${index}; the transcript has ${segments.length} segments, numbered from 0 to ${segments.length - 1}`,
    );
  }
  return segment;
}

/** Whitespace and control characters become one space: a segment's text is one line. */
function oneSpaced(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: folding control characters is the point.
  return text.replace(/[\s\u0000-\u001F\u007F-\u009F]+/g, ' ').trim();
}

/** The segment with new text; its bounds stay, the words that did not change keep their times. */
function withText(segment: ConversationSegment, text: string): ConversationSegment {
  const { words, ...rest } = segment;
  const updated = { ...rest, text };
  return words
    ? { ...updated, words: retime(timedWordsOf(segment), tokensOf(text), segment, tokensOf(segment.text)) }
    : updated;
}

function merged(first: ConversationSegment, second: ConversationSegment): ConversationSegment {
  const words = first.words && second.words ? [...first.words, ...second.words] : undefined;
  return {
    start_ms: Math.min(first.start_ms, second.start_ms),
    end_ms: Math.max(first.end_ms, second.end_ms),
    // The first speaker's: set_speaker in the same request changes it when the recogniser was wrong.
    speaker: first.speaker,
    text: `${first.text} ${second.text}`,
    has_overlap: false,
    ...(words ? { words } : {}),
  };
}

/**
 * Two segments, cut before a word (`at_word`, counted from 0 in the segment's text) or at a time
 * (`at_ms`: the words that start before it go first). Both halves keep at least one word.
 */
function split(
  segment: ConversationSegment,
  edit: Extract<TranscriptEdit, { op: 'split' }>,
  name: string,
): [ConversationSegment, ConversationSegment] {
  const timed = timedWordsOf(segment);
  const { start_ms: start, end_ms: end } = segment;
  let at: number;
  let cut: number;
  if (edit.at_ms !== undefined) {
    if (edit.at_ms <= start || edit.at_ms >= end) {
      throw new UnprocessableError(
        `${name}: at_ms ${edit.at_ms} is outside segment ${edit.segment}, which runs from ${start} to ${end} ms (exclusive)`,
      );
    }
    at = timed.filter((word) => word.start_ms < (edit.at_ms as number)).length;
    cut = edit.at_ms;
  } else {
    at = edit.at_word ?? 0;
    cut = Math.min(Math.max(timed[at]?.start_ms ?? start, start + 1), end - 1);
  }
  if (at < 1 || at >= timed.length) {
    throw new UnprocessableError(
      `${name}: the split would leave one part of segment ${edit.segment} without words; it has ${timed.length} word(s), split before word 1 to ${timed.length - 1}`,
    );
  }
  if (end - start < 2) {
    throw new UnprocessableError(
      `${name}: segment ${edit.segment} is too short to split (${end - start} ms)`,
    );
  }
  const tokens = tokensOf(segment.text);
  const part = (first: number, last: number, from: number, to: number): ConversationSegment => ({
    start_ms: from,
    end_ms: to,
    speaker: segment.speaker,
    text: tokens.slice(first, last).join(' '),
    has_overlap: false,
    ...(segment.words ? { words: timed.slice(first, last) } : {}),
  });
  return [part(0, at, start, cut), part(at, timed.length, cut, end)];
}

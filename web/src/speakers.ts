import type { Segment, TimedWord, Transcription } from './types.ts';

/**
 * Speakers as the API keeps them: a stable label per speaker (`Speaker 2`), which renames
 * (updateNote `speaker_names`) and set_speaker name, and the name the user gave it, which is shown.
 */

const LABEL = /^Speaker ([1-9][0-9]{0,2})$/;

/** Below this confidence (0 to 1) a word is marked for checking. */
export const UNSURE_BELOW = 0.5;

/**
 * The segment's label: `speaker_label` where the service gives it; from an older service, the label
 * whose name the segment shows (its `speaker` is that name), else the speaker as shown.
 */
export function labelOf(segment: Segment, names: Record<string, string>): string {
  if (segment.speaker_label) return segment.speaker_label;
  const named = Object.entries(names).find(([, name]) => name === segment.speaker);
  return named?.[0] ?? segment.speaker;
}

export function nameOf(label: string, names: Record<string, string>): string {
  return names[label] ?? label;
}

/** The transcript's speakers by label: `Speaker N` by number, then any other label as it appears. */
export function labelsOf(segments: readonly Segment[], names: Record<string, string>): string[] {
  const labels = [...new Set(segments.map((segment) => labelOf(segment, names)))];
  const number = (label: string) => Number(LABEL.exec(label)?.[1] ?? Number.POSITIVE_INFINITY);
  return labels.sort((a, b) => number(a) - number(b) || labels.indexOf(a) - labels.indexOf(b));
}

/**
 * A speaker's colour (0 to `palette - 1`): by its label's number, so that colours stay with speakers
 * when a correction changes who speaks first; other labels by their place in `labels`.
 */
export function colourOf(label: string, labels: readonly string[], palette: number): number {
  const number = Number(LABEL.exec(label)?.[1] ?? 0);
  return (number > 0 ? number - 1 : Math.max(0, labels.indexOf(label))) % palette;
}

/**
 * The label a new speaker gets: the lowest-numbered `Speaker N` that neither the transcript nor the
 * names use (the service's rule, which its set_speaker refusal suggests, so both offer the same one).
 */
export function nextFreeLabel(labels: readonly string[], names: Record<string, string>): string {
  const used = new Set([...labels, ...Object.keys(names)]);
  let number = 1;
  while (used.has(`Speaker ${number}`)) number += 1;
  return `Speaker ${number}`;
}

/** The segment's words, one per space-separated token of its text (what split's `at_word` counts). */
export function wordsOf(segment: Segment): Array<{ text: string; unsure: boolean }> {
  const tokens = segment.text.split(/\s+/).filter((token) => token !== '');
  const timed: readonly TimedWord[] | undefined =
    segment.words?.length === tokens.length ? segment.words : undefined;
  // Without word confidences, a segment the recogniser was unsure of is marked as a whole.
  const segmentUnsure = timed === undefined && isUnsure(segment.confidence);
  return tokens.map((text, index) => ({
    text,
    unsure: timed ? isUnsure(timed[index]?.confidence) : segmentUnsure,
  }));
}

function isUnsure(confidence: number | null | undefined): boolean {
  return typeof confidence === 'number' && confidence < UNSURE_BELOW;
}

/** Whether two readings of a transcript have the same segments, so a correction by index means the same. */
export function sameSegments(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((segment, index) => sameSegment(segment, b[index]));
}

/** Whether two readings of a segment are the same segment: same times, text and (where given) label. */
function sameSegment(segment: Segment, other: Segment | undefined): boolean {
  return (
    other !== undefined &&
    segment.start_ms === other.start_ms &&
    segment.end_ms === other.end_ms &&
    segment.text === other.text &&
    (segment.speaker_label === undefined ||
      other.speaker_label === undefined ||
      segment.speaker_label === other.speaker_label)
  );
}

/**
 * The transcript an answer without words holds (getNote and updateNote embed it so, for size), each
 * segment that is still the one `held` has at its place given back its words: so a rename shows the
 * new names at once without losing the marks on the words the recogniser was unsure of.
 */
export function withHeldWords(answer: Transcription, held: Transcription): Transcription {
  return {
    ...answer,
    conversation_segments: answer.conversation_segments.map((segment, index) => {
      const before = held.conversation_segments[index];
      if (segment.words !== undefined || before?.words === undefined || !sameSegment(before, segment)) {
        return segment;
      }
      return { ...segment, words: before.words };
    }),
  };
}

/**
 * A key per segment that stays with it when a split or a merge elsewhere moves it to another index
 * (its start; a count after it where two start together), so an editor open on it stays open on it.
 */
export function segmentKeys(segments: readonly Segment[]): string[] {
  const seen = new Map<number, number>();
  return segments.map((segment) => {
    const count = seen.get(segment.start_ms) ?? 0;
    seen.set(segment.start_ms, count + 1);
    return count === 0 ? `${segment.start_ms}` : `${segment.start_ms}-${count}`;
  });
}

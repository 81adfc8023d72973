import type { ConversationSegment, TimedWord } from './transcript.ts';
import { CONFIRMED_BY_PERSON } from './transcript-confidence.ts';

/**
 * Word timings across a correction. A segment's `words` line up one to one with the
 * whitespace-separated tokens of its text; after the text changes, the tokens that are still the
 * same word keep the time the recogniser gave them, and the new ones are placed between their
 * unchanged neighbours.
 */

/** The tokens of a segment's text, the unit `words` and `at_word` count in. */
export function tokensOf(text: string): string[] {
  return text.split(/\s+/).filter((token) => token !== '');
}

/**
 * The segment's words with times: the stored ones, or (on transcripts stored without words) its
 * tokens spread evenly over the segment, which is the best a segment-level time allows.
 */
export function timedWordsOf(segment: ConversationSegment): TimedWord[] {
  const tokens = tokensOf(segment.text);
  if (segment.words?.length === tokens.length) return segment.words;
  return spread(tokens, segment.start_ms, segment.end_ms);
}

/**
 * Times for the tokens of a new text given the timed words of the old one. Tokens matched to an old
 * word by a longest common subsequence (compared without case or punctuation, so "paris" corrected
 * to "Paris." still matches) keep its times; each run of unmatched tokens shares the gap between its
 * matched neighbours, or the segment's bounds at either end. Tokens left exactly as they were keep
 * the recogniser's confidence; the person typed the others (new words, and words whose case or
 * punctuation they changed, which keep their times), so those are confirmed (confidence 1): a word
 * a person corrected is no longer one to check. `oldTokens`: the old text's tokens, one per old word
 * (the recogniser's word may read "friday" where the text shows "friday.").
 */
export function retime(
  oldWords: readonly TimedWord[],
  newTokens: readonly string[],
  bounds: { start_ms: number; end_ms: number },
  oldTokens: readonly string[] = oldWords.map((word) => word.text),
): TimedWord[] {
  const matches = matchedPairs(
    oldWords.map((word) => comparable(word.text)),
    newTokens.map(comparable),
  );
  const timed: TimedWord[] = [];
  let anchorEnd = bounds.start_ms;
  let pending: string[] = [];
  const flush = (gapEnd: number) => {
    const typed = spread(pending, anchorEnd, Math.max(anchorEnd, gapEnd));
    timed.push(...typed.map((word) => ({ ...word, confidence: CONFIRMED_BY_PERSON })));
    pending = [];
  };
  newTokens.forEach((token, i) => {
    const oldIndex = matches.get(i);
    const old = oldIndex === undefined ? undefined : oldWords[oldIndex];
    if (!old) {
      pending.push(token);
      return;
    }
    flush(old.start_ms);
    const touched = oldIndex !== undefined && token !== oldTokens[oldIndex];
    timed.push(touched ? { ...old, text: token, confidence: CONFIRMED_BY_PERSON } : { ...old, text: token });
    anchorEnd = old.end_ms;
  });
  flush(bounds.end_ms);
  return timed;
}

/** Tokens over [start, end] in equal shares, in whole milliseconds. */
function spread(tokens: readonly string[], start: number, end: number): TimedWord[] {
  const step = (end - start) / Math.max(1, tokens.length);
  return tokens.map((text, i) => ({
    text,
    start_ms: Math.round(start + step * i),
    end_ms: Math.round(start + step * (i + 1)),
  }));
}

/** Case and punctuation do not make a different word. */
function comparable(token: string): string {
  return token.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
}

/** Above this many cells the table would take tens of MB: only the unchanged ends are matched. */
const MAX_TABLE_CELLS = 4_000_000;

/** New index -> old index for a longest common subsequence of the two word lists. */
function matchedPairs(before: readonly string[], after: readonly string[]): Map<number, number> {
  if ((before.length + 1) * (after.length + 1) > MAX_TABLE_CELLS) return matchedEnds(before, after);
  const columns = after.length + 1;
  // lengths[i * columns + j]: LCS length of before[i..] and after[j..].
  const lengths = new Uint32Array((before.length + 1) * columns);
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      lengths[i * columns + j] =
        before[i] === after[j] && before[i] !== ''
          ? (lengths[(i + 1) * columns + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * columns + j] ?? 0, lengths[i * columns + j + 1] ?? 0);
    }
  }
  const pairs = new Map<number, number>();
  for (let i = 0, j = 0; i < before.length && j < after.length; ) {
    if (before[i] === after[j] && before[i] !== '') pairs.set(j++, i++);
    else if ((lengths[(i + 1) * columns + j] ?? 0) >= (lengths[i * columns + j + 1] ?? 0)) i++;
    else j++;
  }
  return pairs;
}

/** The common beginning and end of the two lists (what a long segment's small correction keeps). */
function matchedEnds(before: readonly string[], after: readonly string[]): Map<number, number> {
  const pairs = new Map<number, number>();
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) pairs.set(head, head++);
  for (let tail = 1; tail <= Math.min(before.length, after.length) - head; tail++) {
    if (before[before.length - tail] !== after[after.length - tail]) break;
    pairs.set(after.length - tail, before.length - tail);
  }
  return pairs;
}

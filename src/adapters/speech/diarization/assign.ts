import type { RecognizedWord } from '../../../ports/speech-to-text.ts';
import type { SpeakerTurn } from './types.ts';

/**
 * Puts a speaker on each word: the turn it overlaps most in time, else (a word in a pause the voice
 * activity detector left out) the nearest turn. Words keep their order; with no turns they are
 * returned unchanged.
 */
export function assignSpeakers(
  words: readonly RecognizedWord[],
  turns: readonly SpeakerTurn[],
): RecognizedWord[] {
  const sorted = [...turns].sort((a, b) => a.start_ms - b.start_ms);
  return words.map((word) => {
    const turn = turnFor(word, sorted);
    return turn ? { ...word, speaker: turn.speaker } : { ...word };
  });
}

function turnFor(word: RecognizedWord, sorted: readonly SpeakerTurn[]): SpeakerTurn | undefined {
  // First turn that ends after the word starts (turns do not overlap, so ends are sorted too).
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle]?.end_ms ?? 0) <= word.start_ms) low = middle + 1;
    else high = middle;
  }
  let best: SpeakerTurn | undefined;
  let bestOverlap = 0;
  for (let i = low; i < sorted.length; i++) {
    const turn = sorted[i] as SpeakerTurn;
    if (turn.start_ms >= word.end_ms) break;
    const overlap = Math.min(turn.end_ms, word.end_ms) - Math.max(turn.start_ms, word.start_ms);
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = turn;
    }
  }
  if (best) return best;
  const before = sorted[low - 1];
  const after = sorted[low];
  if (!before) return after;
  if (!after) return before;
  return word.start_ms - before.end_ms <= after.start_ms - word.end_ms ? before : after;
}

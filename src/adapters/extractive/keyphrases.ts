import type { SentenceUnit, UnitToken } from './sentences.ts';
import { isContent } from './sentences.ts';

/** A candidate keyphrase: a noun chunk (or one noun of it) with where it occurs. */
export interface PhraseStats {
  /** Lemmas joined by a space: "migration plan" for "migration plans". */
  key: string;
  words: number;
  count: number;
  /** Surface forms seen, with counts; the label is the most frequent one. */
  surfaces: Map<string, number>;
  segments: Set<number>;
  units: Set<number>;
}

export interface Keyphrase {
  label: string;
  key: string;
  score: number;
  segments: number[];
}

/** Longer chunks are cut to their last (head-final) words: "the new vendor contract renewal" is noise. */
const MAX_PHRASE_WORDS = 3;
const NOUNS = new Set(['NOUN', 'PROPN']);

/**
 * Noun chunks are maximal runs of content nouns / proper nouns (adjectives left out: spoken
 * adjectives are mostly evaluative, "good idea", "big problem"). Each run counts as a phrase and
 * each of its nouns as a one-word phrase, so "database" also counts its uses inside "database migration".
 */
export function collectPhrases(units: readonly SentenceUnit[]): Map<string, PhraseStats> {
  const phrases = new Map<string, PhraseStats>();
  const add = (unit: SentenceUnit, run: readonly UnitToken[]) => {
    const key = run.map((token) => token.lemma).join(' ');
    let stats = phrases.get(key);
    if (!stats) {
      stats = {
        key,
        words: run.length,
        count: 0,
        surfaces: new Map(),
        segments: new Set(),
        units: new Set(),
      };
      phrases.set(key, stats);
    }
    stats.count++;
    stats.segments.add(unit.segmentIndex);
    stats.units.add(unit.index);
    const surface = run.map(surfaceOf).join(' ');
    stats.surfaces.set(surface, (stats.surfaces.get(surface) ?? 0) + 1);
  };
  for (const unit of units) {
    let run: UnitToken[] = [];
    const flush = () => {
      const chunk = run.slice(-MAX_PHRASE_WORDS);
      if (chunk.length > 1) add(unit, chunk);
      for (const token of chunk) add(unit, [token]);
      run = [];
    };
    for (const token of unit.tokens) {
      if (NOUNS.has(token.pos) && isContent(token)) run.push(token);
      else if (run.length > 0) flush();
    }
    if (run.length > 0) flush();
  }
  return phrases;
}

/** Proper nouns keep their capitals ("Postgres"); everything else reads in lower case. */
function surfaceOf(token: UnitToken): string {
  return token.pos === 'PROPN' && /^\p{Lu}/u.test(token.text) ? token.text : token.lower;
}

/** The phrase as it was said most often. */
export function labelOf(stats: PhraseStats): string {
  let best = stats.key;
  let bestCount = 0;
  for (const [surface, count] of stats.surfaces) {
    if (count > bestCount) [best, bestCount] = [surface, count];
  }
  return best;
}

/**
 * The `limit` best phrases by `weight` (frequency times a specificity factor chosen by the caller),
 * with a boost for multi-word chunks because they are more specific than their head noun, skipping
 * phrases that only repeat a better one's words.
 */
export function rankPhrases(
  phrases: Iterable<PhraseStats>,
  weight: (stats: PhraseStats) => number,
  limit: number,
): Keyphrase[] {
  const scored = [...phrases]
    .map((stats) => ({ stats, score: weight(stats) * (1 + 0.5 * (stats.words - 1)) }))
    .sort(
      (a, b) => b.score - a.score || b.stats.count - a.stats.count || a.stats.key.localeCompare(b.stats.key),
    );
  // Phrases said once are noise unless the transcript is too short to repeat anything.
  const repeated = scored.filter((entry) => entry.stats.count >= 2);
  const pool = repeated.length >= Math.min(3, limit) ? repeated : scored;

  const chosen: Keyphrase[] = [];
  const chosenWords: Set<string>[] = [];
  for (const { stats, score } of pool) {
    if (chosen.length >= limit) break;
    // "migration" adds nothing next to "database migration" (and vice versa): skip overlaps.
    const words = new Set(stats.key.split(' '));
    if (
      chosenWords.some(
        (taken) => [...words].every((w) => taken.has(w)) || [...taken].every((w) => words.has(w)),
      )
    ) {
      continue;
    }
    chosen.push({
      label: labelOf(stats),
      key: stats.key,
      score,
      segments: [...stats.segments].sort((a, b) => a - b),
    });
    chosenWords.push(words);
  }
  return chosen;
}

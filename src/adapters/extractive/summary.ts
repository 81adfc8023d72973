import { type SentenceKey, sameSentence, sentenceKey } from '../../domain/same-sentence.ts';
import type { SentenceUnit } from './sentences.ts';
import { wordCount } from './sentences.ts';
import { textRank } from './text-rank.ts';
import { cosine, type SparseVector, tfidfVectors } from './vectors.ts';

/** Sentences shorter than this ("Yeah, sounds good.") carry no summary content. */
const MIN_WORDS = 5;
const MIN_TERMS = 2;
/** A candidate this similar to one already chosen would repeat it. */
const MAX_REDUNDANCY = 0.5;

export interface RankedSentences {
  /** Best first; only sentences worth quoting. */
  order: SentenceUnit[];
  vectors: Map<number, SparseVector>;
}

/**
 * TextRank over the statements long enough to quote. Questions are left out: a summary quoting
 * "Anything else on the budget?" says nothing, and open questions have their own list.
 */
export function rankSentences(
  units: readonly SentenceUnit[],
  isQuestion: (unit: SentenceUnit) => boolean,
): RankedSentences {
  const eligible = units.filter(
    (unit) => wordCount(unit) >= MIN_WORDS && new Set(unit.terms).size >= MIN_TERMS && !isQuestion(unit),
  );
  const vectorList = tfidfVectors(eligible.map((unit) => unit.terms));
  const scores = textRank(vectorList);
  const order = eligible
    .map((unit, i) => ({ unit, score: scores[i] ?? 0 }))
    .sort((a, b) => b.score - a.score || a.unit.index - b.unit.index)
    .map((entry) => entry.unit);
  const vectors = new Map<number, SparseVector>();
  eligible.forEach((unit, i) => {
    vectors.set(unit.index, vectorList[i] as SparseVector);
  });
  return { order, vectors };
}

/**
 * The next `count` best-ranked sentences not in `exclude` and not near-duplicates of each other
 * (a light maximal-marginal-relevance pass), returned in time order. A repeat of an excluded
 * sentence said at another time (a looped recording) is excluded too.
 */
export function pick(ranked: RankedSentences, count: number, exclude: ReadonlySet<number>): SentenceUnit[] {
  const excluded: SentenceKey[] = ranked.order
    .filter((unit) => exclude.has(unit.index))
    .map((unit) => sentenceKey(unit.text));
  const chosen: SentenceUnit[] = [];
  for (const unit of ranked.order) {
    if (chosen.length >= count) break;
    if (exclude.has(unit.index)) continue;
    if (excluded.length > 0) {
      const key = sentenceKey(unit.text);
      if (excluded.some((other) => sameSentence(other, key))) continue;
    }
    const vector = ranked.vectors.get(unit.index);
    const redundant = chosen.some((other) => {
      const otherVector = ranked.vectors.get(other.index);
      return vector && otherVector && cosine(vector, otherVector) > MAX_REDUNDANCY;
    });
    if (!redundant) chosen.push(unit);
  }
  return chosen.sort((a, b) => a.index - b.index);
}

import { MIN_OVERLAP, MIN_TERMS, type SentenceKey, sameSentence, sentenceKey } from './same-sentence.ts';

/**
 * The items whose text is not the same sentence (same-sentence.ts) as an earlier item's. The first
 * of each is kept: in time order, the first time it was said, with its citation; `merge` may fold a
 * repeat into it. Earlier items are found by their normalised text, and near-same ones only among
 * those sharing enough content words (an index by word), so a long recording's thousands of
 * sentences are not compared pair by pair.
 */
export function distinctBy<T>(
  items: readonly T[],
  textOf: (item: T) => string,
  merge: (kept: T, repeat: T) => T = (kept) => kept,
): T[] {
  const kept: { item: T; key: SentenceKey }[] = [];
  const byText = new Map<string, number>();
  const byTerm = new Map<string, number[]>();
  for (const item of items) {
    const key = sentenceKey(textOf(item));
    // Normalised text drops the "?": a question is looked up apart from its answer, as sameSentence says.
    const exact = `${key.question ? '?' : '.'}${key.normalised}`;
    const earlier = byText.get(exact) ?? nearSame(key, kept, byTerm);
    const entry = earlier === undefined ? undefined : kept[earlier];
    if (entry) {
      entry.item = merge(entry.item, item);
      continue;
    }
    byText.set(exact, kept.length);
    for (const term of key.terms.keys()) {
      const postings = byTerm.get(term);
      if (postings) postings.push(kept.length);
      else byTerm.set(term, [kept.length]);
    }
    kept.push({ item, key });
  }
  return kept.map((entry) => entry.item);
}

/** The first kept item near-same as `key`, counting shared words through the index first. */
function nearSame(
  key: SentenceKey,
  kept: readonly { key: SentenceKey }[],
  byTerm: ReadonlyMap<string, readonly number[]>,
): number | undefined {
  if (key.terms.size < MIN_TERMS) return undefined;
  const shared = new Map<number, number>();
  for (const term of key.terms.keys()) {
    for (const at of byTerm.get(term) ?? []) shared.set(at, (shared.get(at) ?? 0) + 1);
  }
  let found: number | undefined;
  for (const [at, count] of shared) {
    const other = kept[at]?.key;
    if (!other || (found !== undefined && at > found)) continue;
    const overlap = count / (key.terms.size + other.terms.size - count);
    if (overlap >= MIN_OVERLAP && sameSentence(other, key)) found = at;
  }
  return found;
}

import { normaliseForQuote } from './artifacts.ts';
import { NUMBER_WORDS } from './number-words.ts';
import { termsAt } from './search-terms.ts';

/**
 * When two generated items say the same thing: a recording that loops, a recap that repeats a
 * sentence word for word, or a model that lists an item twice. Same = equal once case, punctuation
 * and spacing are set aside, both questions or neither; near-same = one says all the other says and
 * a few words more (search's stemmed terms: the shorter one's all in the longer, at least 80% of the
 * two shared), never a word swapped for another, and the words that differ change no fact: a figure,
 * a date word, a name (a capitalised word inside a sentence), a negation or a word of order or
 * amount ("before", "more": stop words to search, not here) makes two sentences different.
 */

/** Share of the two sentences' content words they must have in common (Jaccard). */
export const MIN_OVERLAP = 0.8;
/** Below this many content words only an exact (normalised) repeat is the same sentence. */
export const MIN_TERMS = 4;
const NEGATION = /\b(?:not|no|never|nobody|nothing|none|neither|nor|cannot|without)\b|n't\b/;
const CALENDAR = new Set([
  ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
  ...['january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october'],
  ...['november', 'december', 'today', 'tomorrow', 'yesterday', 'tonight', 'week', 'month', 'year'],
]);
/** Words search ignores that turn a sentence around: "before" the review is not "after" it. */
const RELATIONS =
  /\b(?:before|after|more|most|fewer|less|least|all|some|only|over|under|until|between|above|below|up|down|first|last|earlier|later|same|other)\b/g;
/** "I'll", "we're": a pronoun and a verb, no content ("I will" and "I'll" say the same). */
const CONTRACTION = /'(?:ll|re|ve|d|m)$/;

export interface SentenceKey {
  normalised: string;
  /** A question is never the same sentence as its answer ("Did we ship?" / "We shipped."). */
  question: boolean;
  negated: boolean;
  /** The words of order and amount it has, sorted: two sentences must have the same. */
  relations: string;
  /** Content term → whether it states a fact (figure, date word, name) that two sentences must share. */
  terms: ReadonlyMap<string, boolean>;
}

export function sentenceKey(text: string): SentenceKey {
  const normalised = normaliseForQuote(text);
  const terms = new Map<string, boolean>();
  for (const { term, start, end } of termsAt(text)) {
    const word = text.slice(start, end);
    const lower = word.toLowerCase();
    if (CONTRACTION.test(lower)) continue;
    const factual =
      /\d/.test(word) || NUMBER_WORDS.has(lower) || CALENDAR.has(lower) || isName(text, start, word);
    terms.set(term, (terms.get(term) ?? false) || factual);
  }
  return {
    normalised,
    question: /\?["'”’)\s]*$/.test(text),
    negated: NEGATION.test(normalised),
    relations: [...new Set(normalised.match(RELATIONS) ?? [])].sort().join(' '),
    terms,
  };
}

export function sameSentence(a: SentenceKey, b: SentenceKey): boolean {
  if (a.question !== b.question) return false;
  if (a.normalised === b.normalised) return true;
  if (a.negated !== b.negated || a.relations !== b.relations) return false;
  if (a.terms.size < MIN_TERMS || b.terms.size < MIN_TERMS) return false;
  let shared = 0;
  for (const term of a.terms.keys()) if (b.terms.has(term)) shared++;
  // One must hold every word of the other: a repeat that adds words, never one that swaps them.
  if (shared < Math.min(a.terms.size, b.terms.size)) return false;
  if (shared / (a.terms.size + b.terms.size - shared) < MIN_OVERLAP) return false;
  return !differsInFact(a, b) && !differsInFact(b, a);
}

/** A fact-bearing word of `a` that `b` does not have. */
function differsInFact(a: SentenceKey, b: SentenceKey): boolean {
  for (const [term, factual] of a.terms) if (factual && !b.terms.has(term)) return true;
  return false;
}

/** Capitalised inside its sentence (not its first word, not "I"): a name, a month, a product. */
function isName(text: string, start: number, word: string): boolean {
  if (!/^\p{Lu}/u.test(word) || /^I(?:'|$)/.test(word)) return false;
  return !/(?:^|[.!?…:])["'“”‘’(\s]*$/.test(text.slice(0, start));
}

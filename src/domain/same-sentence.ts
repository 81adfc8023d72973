import { normaliseForQuote } from './artifacts.ts';
import { NUMBER_WORDS } from './number-words.ts';
import { termsAt } from './search-terms.ts';

/**
 * When two generated items say the same thing: a recording that loops, a recap that repeats a
 * sentence word for word, or a model that lists an item twice. Same = equal once case, punctuation
 * and spacing are set aside; near-same = the same content words but a few (search's stemmed terms,
 * at least 80% shared), as long as the words that differ change no fact: a figure, a date word, a
 * name (a capitalised word inside a sentence) or a negation makes two sentences different.
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
/** "I'll", "we're": a pronoun and a verb, no content ("I will" and "I'll" say the same). */
const CONTRACTION = /'(?:ll|re|ve|d|m)$/;

export interface SentenceKey {
  normalised: string;
  negated: boolean;
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
  return { normalised, negated: NEGATION.test(normalised), terms };
}

export function sameSentence(a: SentenceKey, b: SentenceKey): boolean {
  if (a.normalised === b.normalised) return true;
  if (a.negated !== b.negated || a.terms.size < MIN_TERMS || b.terms.size < MIN_TERMS) return false;
  let shared = 0;
  for (const term of a.terms.keys()) if (b.terms.has(term)) shared++;
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

import { stemmer } from 'stemmer';
import { STOP_WORDS } from './stop-words.ts';

/**
 * The words search works with, the same for notes and questions: lower-cased letters and digits,
 * English stop words dropped, Porter-stemmed ("deciding", "decided" -> "decid"). Stemming is English;
 * other languages are matched on whole lower-cased words, consistently on both sides.
 */
const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu;
/** Longer "words" are IDs, hashes or run-together noise, not something a person asks about. */
const MAX_TERM_LENGTH = 40;

/** A searchable word of a text: its term and where the word stands (UTF-16 offsets, end exclusive). */
export interface TermAt {
  term: string;
  start: number;
  end: number;
}

/**
 * The terms of a text in order, with the place of each word, so that matches can be highlighted.
 * Words are found before lower-casing (which can change a string's length) so offsets fit the text.
 */
export function termsAt(text: string): TermAt[] {
  const terms: TermAt[] = [];
  for (const match of text.replace(/[‘’`´]/g, "'").matchAll(WORD)) {
    const lower = match[0].toLowerCase();
    const word = lower.replace(/'s$/, '');
    if (STOP_WORDS.has(lower) || STOP_WORDS.has(word) || word.length > MAX_TERM_LENGTH) continue;
    // Single letters say nothing; single digits can ("2 engineers").
    if (word.length < 2 && !/\d/.test(word)) continue;
    terms.push({ term: stemmer(word), start: match.index, end: match.index + match[0].length });
  }
  return terms;
}

export function searchTerms(text: string): string[] {
  return termsAt(text).map((at) => at.term);
}

/** Term frequencies of a text, and its length in terms (what BM25 calls the document length). */
export function termFrequencies(text: string): { terms: Map<string, number>; length: number } {
  const terms = new Map<string, number>();
  const all = searchTerms(text);
  for (const term of all) terms.set(term, (terms.get(term) ?? 0) + 1);
  return { terms, length: all.length };
}

import type { AskPassage } from '../ports/answer-engine.ts';
import { searchTerms } from './search-terms.ts';

/** Sentences: split after . ! ? or … followed by space, and at line breaks; empty pieces dropped. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence));
}

export interface CitedSentence {
  sentence: string;
  start_ms: number;
}

/**
 * The sentence of a cited passage that the answer rests on, and when it is said. An answer that
 * quotes the passage (the extractive engine's) rests on the sentence it quotes first: the time shown
 * with the answer and its citation's link are then its first quote's. Otherwise (a model's
 * paraphrase) it is the sentence whose content words the answer shares most fully, the earliest on a
 * tie, the passage's first when none is shared. Works for every answer engine, as it reads only the
 * answer and the passage. Its time is its first word's (word timings), else its turn's start, else
 * the passage's: the cited moment opens on the sentence, not on the start of the window.
 */
export function citedSentence(passage: AskPassage, answer: string): CitedSentence {
  const answerTerms = new Set(searchTerms(answer));
  const quotable = ` ${comparable(answer)} `;
  let best: (CitedSentence & { share: number; shared: number }) | null = null;
  let firstQuoted: (CitedSentence & { at: number }) | null = null;
  for (const turn of passage.turns) {
    const tokens = turn.text.split(/\s+/).filter(Boolean);
    let wordIndex = 0;
    for (const sentence of splitSentences(turn.text)) {
      const at = indexOfSentence(tokens, sentence, wordIndex);
      const start_ms = turn.word_starts?.[at] ?? turn.start_ms ?? passage.start_ms;
      wordIndex = at + sentence.split(/\s+/).filter(Boolean).length;
      const quotedAt = quotedPosition(sentence, quotable);
      if (quotedAt >= 0 && (!firstQuoted || quotedAt < firstQuoted.at)) {
        firstQuoted = { sentence, start_ms, at: quotedAt };
      }
      const terms = new Set(searchTerms(sentence));
      const shared = [...terms].filter((term) => answerTerms.has(term)).length;
      const share = terms.size === 0 ? 0 : shared / terms.size;
      if (!best || share > best.share || (share === best.share && shared > best.shared)) {
        best = { sentence, start_ms, share, shared };
      }
    }
  }
  if (firstQuoted) return { sentence: firstQuoted.sentence, start_ms: firstQuoted.start_ms };
  if (!best || best.shared === 0) {
    const first = passage.turns[0];
    const sentence = splitSentences(first?.text ?? passage.text)[0] ?? passage.text;
    return { sentence, start_ms: first?.start_ms ?? passage.start_ms };
  }
  return { sentence: best.sentence, start_ms: best.start_ms };
}

/** Fewer words than this say too little to tell a quote from words that happen to recur. */
const QUOTE_MIN_WORDS = 3;
/** A quote may be cut short ("…"): its opening words are enough to know it. */
const QUOTE_OPENING_WORDS = 6;

/**
 * Where in the answer (as `comparable`, padded with spaces) the sentence is quoted, by its opening
 * words, or -1.
 */
function quotedPosition(sentence: string, quotable: string): number {
  const words = comparable(sentence).split(' ').filter(Boolean);
  if (words.length < QUOTE_MIN_WORDS) return -1;
  return quotable.indexOf(` ${words.slice(0, QUOTE_OPENING_WORDS).join(' ')} `);
}

/** Lower case, words only: quotation marks, punctuation and line breaks do not make another quote. */
function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();
}

/** The index of the token where `sentence` begins, searching from `from` (its words are the turn's). */
function indexOfSentence(tokens: readonly string[], sentence: string, from: number): number {
  const first = sentence.split(/\s+/)[0] ?? '';
  for (let index = from; index < tokens.length; index++) if (tokens[index] === first) return index;
  return from;
}

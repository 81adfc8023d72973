/**
 * Reader-friendly forms for the words of a recogniser that spells everything out (pocketsphinx):
 * numbers of 10 and more as figures, the usual style-guide rule, and "mister" as "Mr.". Only where the
 * reading is certain: a number next to another number word ("nineteen ninety", "two nine three four",
 * "twenty first", "two hundred and five") could be a year, a digit string, an ordinal or a sum, so
 * it stays in words.
 */
import type { RecognizedWord } from '../ports/speech-to-text.ts';
import { NUMBER_WORDS, spokenNumberAt } from './number-words.ts';

/** Values from here on are left in words: "2 million" reads better than 2,000,000 and is rarely said. */
const WORDS_FROM = 1e6;
/** Titles that are always followed by a name. */
const TITLES: Readonly<Record<string, string>> = {
  mister: 'Mr.',
  mr: 'Mr.',
  'mr.': 'Mr.',
  missus: 'Mrs.',
  mrs: 'Mrs.',
  'mrs.': 'Mrs.',
};

export function readableWords(words: readonly RecognizedWord[]): RecognizedWord[] {
  const tokens = words.map((word) => word.text.toLowerCase());
  const out: RecognizedWord[] = [];
  for (let index = 0; index < words.length; ) {
    const word = words[index] as RecognizedWord;
    const number = spokenNumberAt(tokens, index);
    if (number && number.value >= 10 && number.value < WORDS_FROM && standsAlone(tokens, index, number.end)) {
      const last = words[number.end - 1] as RecognizedWord;
      out.push({
        ...word,
        text: figures(number.value),
        end_ms: last.end_ms,
        ...leastConfidence(words.slice(index, number.end)),
      });
      index = number.end;
      continue;
    }
    if (number) {
      // Not certain: the whole number stays in words (none of its parts is converted on its own).
      out.push(...words.slice(index, number.end));
      index = number.end;
      continue;
    }
    const title = TITLES[tokens[index] ?? ''];
    out.push(title && index + 1 < words.length ? { ...word, text: title } : word);
    index += 1;
  }
  return out;
}

/** A number read from several words is only as certain as its least certain word. */
function leastConfidence(parts: readonly RecognizedWord[]): Pick<RecognizedWord, 'confidence'> {
  const scores = parts.flatMap((part) => (part.confidence === undefined ? [] : [part.confidence]));
  return scores.length > 0 ? { confidence: Math.min(...scores) } : {};
}

/** No number word right before or after, nor joined by "and" ("two hundred and five"). */
function standsAlone(tokens: readonly string[], start: number, end: number): boolean {
  const isNumber = (at: number) => NUMBER_WORDS.has(tokens[at] ?? '');
  if (isNumber(start - 1) || isNumber(end)) return false;
  if (tokens[start - 1] === 'and' && isNumber(start - 2)) return false;
  return !(tokens[end] === 'and' && isNumber(end + 1));
}

/** 1,000-9,999 without a separator (it may be a year); 10,000 and above with one. */
function figures(value: number): string {
  return value < 10_000 ? String(value) : value.toLocaleString('en-US');
}

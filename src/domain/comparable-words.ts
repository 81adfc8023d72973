/**
 * One form for words that are the same to a reader, so that a word error rate counts only real
 * errors: "mister", "mr" and "Mr." are one word, "twenty five" and "25" one number.
 */
import { spokenNumberAt } from './number-words.ts';

const SAME: Readonly<Record<string, string>> = {
  mister: 'mr',
  missus: 'mrs',
  okay: 'ok',
};

/** Lower-case tokens without punctuation in, the same with numbers as figures and one spelling out. */
export function comparableWords(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < tokens.length; ) {
    const number = spokenNumberAt(tokens, index);
    if (number) {
      out.push(String(number.value));
      index = number.end;
      continue;
    }
    const token = tokens[index] as string;
    out.push(SAME[token] ?? token);
    index += 1;
  }
  return out;
}

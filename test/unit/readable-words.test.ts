import { describe, expect, it } from 'vitest';
import { wordErrorRate } from '../../src/adapters/speech/diarization/metrics.ts';
import { comparableWords } from '../../src/domain/comparable-words.ts';
import { spokenNumberAt } from '../../src/domain/number-words.ts';
import { readableWords } from '../../src/domain/readable-words.ts';
import type { RecognizedWord } from '../../src/ports/speech-to-text.ts';

/** Words 100 ms apart, each 80 ms long, as a recogniser would time them. */
function spoken(text: string): RecognizedWord[] {
  return text.split(' ').map((word, i) => ({ text: word, start_ms: i * 100, end_ms: i * 100 + 80 }));
}
const read = (text: string) =>
  readableWords(spoken(text))
    .map((word) => word.text)
    .join(' ');

describe('spokenNumberAt', () => {
  it.each([
    ['seven', 7],
    ['fourteen', 14],
    ['sixty two', 62],
    ['three hundred', 300],
    ['three hundred twelve', 312],
    ['two thousand twenty', 2020],
    ['twelve thousand five hundred', 12_500],
    ['two million three hundred thousand five', 2_300_005],
  ])('reads "%s" as %i', (text, value) => {
    const tokens = text.split(' ');
    expect(spokenNumberAt(tokens, 0)).toEqual({ value, end: tokens.length });
  });

  it('takes neither "a hundred", a lone "hundred", nor "and" as part of a number', () => {
    expect(spokenNumberAt(['a', 'hundred'], 0)).toBeUndefined();
    expect(spokenNumberAt(['hundred'], 0)).toBeUndefined();
    expect(spokenNumberAt(['two', 'hundred', 'and', 'five'], 0)).toEqual({ value: 200, end: 2 });
  });
});

describe('readableWords', () => {
  it('writes numbers of ten and more as figures and keeps one to nine in words', () => {
    expect(read('we planted forty new trees and three bushes')).toBe(
      'we planted 40 new trees and three bushes',
    );
    expect(read('it costs twenty five thousand dollars')).toBe('it costs 25,000 dollars');
    expect(read('ten of clubs')).toBe('10 of clubs');
  });

  it('leaves numbers in words where the reading is uncertain', () => {
    expect(read('in nineteen ninety we moved')).toBe('in nineteen ninety we moved');
    expect(read('dial two nine three four zero')).toBe('dial two nine three four zero');
    expect(read('the twenty first of june')).toBe('the twenty first of june');
    expect(read('two hundred and five people')).toBe('two hundred and five people');
    expect(read('about two million people')).toBe('about two million people');
  });

  it('gives a number made of several words the time span of all of them', () => {
    const [, number] = readableWords(spoken('about twenty five people'));
    expect(number).toEqual({ text: '25', start_ms: 100, end_ms: 280 });
  });

  it('writes the title "mister" as "Mr." before a name', () => {
    expect(read('and mister john dashwood')).toBe('and Mr. john dashwood');
    expect(read('thank you mister')).toBe('thank you mister');
  });

  it('keeps the speaker of the words it joins', () => {
    const words = spoken('twenty five').map((word) => ({ ...word, speaker: 'spk_0' }));
    expect(readableWords(words)).toEqual([{ text: '25', start_ms: 0, end_ms: 180, speaker: 'spk_0' }]);
  });
});

describe('word error rate on comparable words', () => {
  it('counts "mister" and "Mr." as the same word', () => {
    expect(wordErrorRate('and mister john dashwood', 'and Mr. John Dashwood')).toBe(0);
  });

  it('counts a number in words and in figures as the same number', () => {
    expect(wordErrorRate('twenty five thousand people', '25,000 people')).toBe(0);
    expect(comparableWords(['ten', 'of', 'clubs'])).toEqual(['10', 'of', 'clubs']);
  });

  it('still counts a wrong number as an error', () => {
    expect(wordErrorRate('twenty five people', 'twenty six people')).toBe(1 / 2);
  });
});

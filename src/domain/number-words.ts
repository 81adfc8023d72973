/**
 * Spoken English cardinals ("twenty five", "three hundred four", "two thousand twenty") read from
 * lower-case word tokens, as recognisers without number formatting emit them.
 */

const UNITS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
};
const TEENS: Readonly<Record<string, number>> = {
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Readonly<Record<string, number>> = { thousand: 1e3, million: 1e6, billion: 1e9 };

/** Words that make or continue a spoken number, including the ones this parser leaves alone. */
export const NUMBER_WORDS: ReadonlySet<string> = new Set([
  ...Object.keys(UNITS),
  ...Object.keys(TEENS),
  ...Object.keys(TENS),
  ...Object.keys(SCALES),
  'hundred',
  'oh',
  'point',
  ...['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'],
  ...['eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth'],
  ...['eighteenth', 'nineteenth', 'twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth'],
  ...['seventieth', 'eightieth', 'ninetieth', 'hundredth', 'thousandth', 'millionth'],
]);

export interface SpokenNumber {
  value: number;
  /** Index after the last token of the number. */
  end: number;
}

/**
 * The longest cardinal that starts at `tokens[start]`, or undefined. Groups under a thousand joined by
 * falling scales: "two million three hundred thousand five" is 2,300,005. "and" is not taken in
 * ("two hundred and five" could be 205 or 200 and 5); "a hundred" and "hundred" alone are not numbers.
 */
export function spokenNumberAt(tokens: readonly string[], start: number): SpokenNumber | undefined {
  let total = 0;
  let index = start;
  let lastScale = Number.POSITIVE_INFINITY;
  let found = false;
  for (;;) {
    const group = groupAt(tokens, index);
    if (!group) break;
    found = true;
    const scale = SCALES[tokens[group.end] ?? ''];
    // "zero thousand" is not said; a repeated or rising scale starts another number.
    if (scale === undefined || scale >= lastScale || group.value === 0) {
      total += group.value;
      index = group.end;
      break;
    }
    total += group.value * scale;
    lastScale = scale;
    index = group.end + 1;
  }
  return found ? { value: total, end: index } : undefined;
}

/** 0-999: "seven", "fourteen", "sixty", "sixty two", "three hundred", "three hundred twelve". */
function groupAt(tokens: readonly string[], start: number): SpokenNumber | undefined {
  const unit = UNITS[tokens[start] ?? ''];
  if (unit !== undefined && unit > 0 && tokens[start + 1] === 'hundred') {
    const rest = belowHundredAt(tokens, start + 2);
    return rest && rest.value > 0
      ? { value: unit * 100 + rest.value, end: rest.end }
      : { value: unit * 100, end: start + 2 };
  }
  return belowHundredAt(tokens, start);
}

function belowHundredAt(tokens: readonly string[], start: number): SpokenNumber | undefined {
  const word = tokens[start] ?? '';
  const tens = TENS[word];
  if (tens !== undefined) {
    const unit = UNITS[tokens[start + 1] ?? ''];
    return unit !== undefined && unit > 0
      ? { value: tens + unit, end: start + 2 }
      : { value: tens, end: start + 1 };
  }
  const value = TEENS[word] ?? UNITS[word];
  return value === undefined ? undefined : { value, end: start + 1 };
}

import * as chrono from 'chrono-node';

/** Mentions that chrono reads as a date but that never state a deadline. */
const NOT_A_DEADLINE = /^(now|right now|currently|at the moment|recently)$/;

export interface StatedDate {
  /** yyyy-mm-dd */
  date: string;
  /** Where the mention starts in the text, to see what precedes it ("by", "before"). */
  index: number;
}

/**
 * Dates stated in a sentence, resolved against the recording time. The reference is read in UTC so
 * that the same transcript gives the same dates on any host; `forwardDate` because spoken deadlines
 * point ahead ("Friday" means the coming one).
 */
export function statedDates(text: string, referenceTime: number): StatedDate[] {
  const results = chrono.parse(
    text,
    { instant: new Date(referenceTime), timezone: 'UTC' },
    { forwardDate: true },
  );
  return results
    .filter((result) => !NOT_A_DEADLINE.test(result.text.trim().toLowerCase()))
    .map((result) => ({
      date: isoDate(result.start.get('year'), result.start.get('month'), result.start.get('day')),
      index: result.index,
    }))
    .filter((stated): stated is StatedDate => stated.date !== '');
}

function isoDate(year: number | null, month: number | null, day: number | null): string {
  if (year === null || month === null || day === null) return '';
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

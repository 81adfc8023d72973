import * as chrono from 'chrono-node';

/** Mentions that chrono reads as a date but that never state a deadline. */
const NOT_A_DEADLINE = /^(now|right now|currently|at the moment|recently)$/;

/** Words that make the date right after them a deadline: "by Friday", "before the 12th", "due March 3". */
const LEAD = String.raw`(?:by|before|until|till|due(?:\s+(?:on|by))?|on|no\s+later\s+than|within)`;
/** A lead just before the mention ("by the end of February": chrono's mention starts at "end"). */
const LEAD_BEFORE = new RegExp(String.raw`\b${LEAD}(?:\s+the)?\s*$`);
/** chrono sometimes takes the lead into the mention itself ("on Thursday", "within two weeks"). */
const LEAD_INSIDE = new RegExp(String.raw`^${LEAD}\s+`);

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december';
/**
 * Mentions that name a deadline even without a lead: a weekday, tomorrow, next week or month, the end
 * of a week, month or named month, "in two weeks". Durations ("six years"), times and years do not.
 */
const SELF_STANDING = new RegExp(
  [
    String.raw`^(?:(?:this|next|coming)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)$`,
    String.raw`^(?:the\s+day\s+after\s+)?tomorrow$`,
    String.raw`^next\s+(?:week|month)$`,
    String.raw`^(?:the\s+)?end\s+of\s+(?:(?:the|this|next)\s+)?(?:week|month|quarter|${MONTHS})$`,
    String.raw`^in\s+\S+\s+(?:days?|weeks?)$`,
  ].join('|'),
);

export interface StatedDate {
  /** yyyy-mm-dd */
  date: string;
  /** Where the mention starts in the text, to see what precedes it ("by", "before"). */
  index: number;
}

export interface StatedDeadline extends StatedDate {
  /** Said after a lead ("by", "before", "until", "due", "on"): the sentence sets a deadline. */
  led: boolean;
}

/**
 * Dates stated in a sentence, resolved against the recording time. The reference is read in UTC so
 * that the same transcript gives the same dates on any host; `forwardDate` because spoken deadlines
 * point ahead ("Friday" means the coming one).
 */
export function statedDates(text: string, referenceTime: number): StatedDate[] {
  return mentions(text, referenceTime).map(({ date, index }) => ({ date, index }));
}

/**
 * The dates of a sentence that state a deadline: after a lead ("by the end of February"), or a form
 * that names one by itself ("tomorrow", "next Friday"). A number elsewhere in the sentence is never
 * one: "the six year theory" is not a date six years ahead. Resolved like `statedDates`.
 */
export function statedDeadlines(text: string, referenceTime: number): StatedDeadline[] {
  const lower = text.toLowerCase();
  const deadlines: StatedDeadline[] = [];
  for (const mention of mentions(text, referenceTime)) {
    // A date names a day, a weekday or a month; a time of day or a bare year does not.
    if (!['day', 'weekday', 'month'].some((part) => mention.certain.has(part))) continue;
    const said = mention.text.toLowerCase().trim();
    const led = LEAD_BEFORE.test(lower.slice(0, mention.index)) || LEAD_INSIDE.test(said);
    if (led || SELF_STANDING.test(said.replace(LEAD_INSIDE, ''))) {
      deadlines.push({ date: mention.date, index: mention.index, led });
    }
  }
  return deadlines;
}

interface Mention extends StatedDate {
  text: string;
  /** The date components the words state (not those chrono filled in from the reference). */
  certain: Set<string>;
}

function mentions(text: string, referenceTime: number): Mention[] {
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
      text: result.text,
      certain: new Set(
        (['day', 'weekday', 'month', 'year'] as const).filter((part) => result.start.isCertain(part)),
      ),
    }))
    .filter((mention) => mention.date !== '');
}

function isoDate(year: number | null, month: number | null, day: number | null): string {
  if (year === null || month === null || day === null) return '';
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

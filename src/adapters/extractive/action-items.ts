import { distinctBy } from '../../domain/distinct-items.ts';
import { statedDeadlines } from './dates.ts';
import { addressee, namedSubject } from './owners.ts';
import type { SentenceUnit } from './sentences.ts';

export interface FoundActionItem {
  unit: SentenceUnit;
  owner: string | null;
  due_date: string | null;
}

/** The speaker commits: the owner is whoever said it. */
const FIRST_PERSON = /\b(i will|i'll|i am going to|i'm going to|i'm gonna|i can take|i'll take care)\b/;
/** Figures of speech that look like commitments. */
const NOT_A_COMMITMENT =
  /\bi(?: will|'ll) (?:be honest|admit|say|tell you what|be brief|be quick|give you that)\b/;
const COLLECTIVE =
  /\b(we will|we'll|we need to|we have to|we must|we've got to|we are going to|we're going to|let's|let us)\b/;
const REQUEST = /\b(can you|could you|would you|will you|please)\b/;
const EXPLICIT = /\b(action items?|to-?dos?|follow[- ]?up|make sure)\b/;

export interface ActionItemOptions {
  punctuated: boolean;
  referenceTime: number;
  /** Sentences already read as decisions: "we will go with X" is a decision, not a task. */
  isDecision: (unit: SentenceUnit) => boolean;
  isQuestion: (unit: SentenceUnit) => boolean;
}

/**
 * Sentences that commit someone to do something. One item per sentence; the owner is a named
 * subject ("Priya will"), else the speaker for "I will", else the addressee of a request, else null.
 * A sentence said again (a looped recording, a recap) is the same task: the first time it was said
 * is kept, with an owner or date only a repeat states.
 */
export function findActionItems(
  units: readonly SentenceUnit[],
  options: ActionItemOptions,
): FoundActionItem[] {
  const items: FoundActionItem[] = [];
  for (const unit of units) {
    const text = unit.lower;
    const deadlines = statedDeadlines(unit.text, options.referenceTime);
    // "by Friday" makes a sentence a task; "tomorrow" alone only dates one that is a task anyway.
    const deadline = deadlines.some((stated) => stated.led);
    const named = namedSubject(unit.tokens, options.punctuated);
    const firstPerson = FIRST_PERSON.test(text) && !NOT_A_COMMITMENT.test(text);
    const request = REQUEST.test(text);
    const explicit = EXPLICIT.test(text);
    const collective = COLLECTIVE.test(text);

    // A question is a task only when it asks someone to do something ("can you send ...?").
    if (options.isQuestion(unit) && !request) continue;
    const triggered = named !== null || firstPerson || request || explicit || deadline;
    if (!triggered && !(collective && !options.isDecision(unit))) continue;

    const owner =
      named ?? (firstPerson ? unit.speaker : request ? addressee(unit.tokens, options.punctuated) : null);
    items.push({ unit, owner, due_date: deadlines[0]?.date ?? null });
  }
  return distinctBy(
    items,
    (item) => item.unit.text,
    (kept, repeat) => ({
      ...kept,
      owner: kept.owner ?? repeat.owner,
      due_date: kept.due_date ?? repeat.due_date,
    }),
  );
}

import { distinctBy } from '../../domain/distinct-items.ts';
import type { SentenceUnit } from './sentences.ts';

const DECISION =
  /\b(decided|agreed|(?:will|'ll|are going to|'re going to|are|'re) go(?:ing)? with|the decision is|let's go with|let us go with|settled on|approved|signed off|final call is|we're going with|it's decided)\b/;
/** "we haven't decided", "not agreed yet": talk about a decision that was not made. */
const NEGATED =
  /\b(not|n't|never|haven't|hasn't|didn't|weren't|wasn't|yet to|still need to|before we) (?:\w+ ){0,2}(decided|agreed|approved|settled|go with)\b/;

/** Sentences that state a decision; questions about a decision ("did we agree?") are not one. */
export function isDecision(unit: SentenceUnit, isQuestion: (unit: SentenceUnit) => boolean): boolean {
  return DECISION.test(unit.lower) && !NEGATED.test(unit.lower) && !isQuestion(unit);
}

/** The sentences that state a decision, each once: a decision said again is not a new one. */
export function decisionsIn(
  units: readonly SentenceUnit[],
  isDecisionUnit: (unit: SentenceUnit) => boolean,
): SentenceUnit[] {
  return distinctBy(units.filter(isDecisionUnit), (unit) => unit.text);
}

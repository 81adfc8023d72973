import type { DeepResearchContent } from '../../../domain/artifacts.ts';
import { distinctBy } from '../../../domain/distinct-items.ts';
import { sameSentence, sentenceKey } from '../../../domain/same-sentence.ts';
import { statedDates } from '../dates.ts';
import { type SentenceUnit, wordCount } from '../sentences.ts';
import {
  type Analysis,
  centralUnits,
  evidenceFor,
  isNavigation,
  replyTo,
  shortened,
  speakerName,
  timestamp,
} from './analysis.ts';

/** Questions that steer the meeting rather than ask about anything. */
const META_QUESTION =
  /^(?:(?:so|and|okay|ok|well|now|alright|right)[, ]+)*(?:anything else|any other|any questions|should we (?:start|begin|move on|wrap)|shall we (?:start|begin|move on|wrap)|are we done|does that make sense|can everyone|is everyone|how are you|can you hear|sounds good)\b/;
/** Statements that admit something is not known yet. */
const UNKNOWN =
  /\b(not sure|don't know|do not know|no idea|unclear|tbd|to be decided|to be confirmed|not yet|yet to|nobody (?:has|knows)|no one (?:has|knows)|need to (?:check|find out|figure out|confirm)|have to (?:check|find out|figure out|confirm))\b/;
const NUMBER =
  /(?:\d|%|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|percent|half|double|twice|triple)\b)/;
const COMPARISON =
  /\b(?:(?:more|less|fewer|better|worse|faster|slower|cheaper|higher|lower|bigger|smaller) than|compared?|versus|vs|same as|as much as|instead of|better|worse|faster|slower|cheaper)\b/;
const CAUSAL =
  /\b(?:because|so that|which means|that means|means that|therefore|due to|as a result|caused|leads to)\b|,\s*so\b/;

const MAX_RESEARCH_QUESTIONS = 8;
const MAX_CLAIMS = 10;
const MAX_GAPS = 10;
const MAX_ONCE_MENTIONED = 3;
const MAX_NEXT_STEPS = 15;

/**
 * A research brief from the conversation alone: what it says (quoted summary), what it asks, what it
 * asserts that can be checked, what it leaves open and what people committed to. Every item quotes
 * the transcript; rationales and gap texts are templates stating where and how something came up.
 * A sentence said more than once (a looped recording, a recap) is one item, at its first time.
 */
export function deepResearch(analysis: Analysis): DeepResearchContent {
  return {
    summary: summaryOf(analysis),
    research_questions: researchQuestions(analysis),
    claims: claims(analysis),
    gaps: gaps(analysis),
    next_steps: nextSteps(analysis),
  };
}

function summaryOf(analysis: Analysis): string {
  const units = centralUnits(analysis, analysis.ranked.order.length >= 9 ? 4 : 3);
  let text = '';
  for (const unit of units) {
    const next = `${text === '' ? '' : `${text} `}"${unit.text}"`;
    if (next.length > 2000) break;
    text = next;
  }
  return text === '' ? `"${shortened(units[0]?.text ?? '', 1990)}"` : text;
}

function isOpen(analysis: Analysis, unit: SentenceUnit): boolean {
  return analysis.openQuestions.some((open) => open.index === unit.index);
}

function researchQuestions(analysis: Analysis): DeepResearchContent['research_questions'] {
  const asked = distinctBy(
    analysis.units.filter(
      (unit) =>
        analysis.isQuestion(unit) &&
        !analysis.isRequest(unit) &&
        !META_QUESTION.test(unit.lower) &&
        unit.terms.length > 0,
    ),
    (unit) => unit.text,
  );
  const chosen = [
    ...asked.filter((unit) => isOpen(analysis, unit)),
    ...asked.filter((unit) => !isOpen(analysis, unit)),
  ].slice(0, MAX_RESEARCH_QUESTIONS);
  return chosen.map((unit) => {
    const replies = replyTo(analysis, unit);
    const reply = replies[0];
    const asker = `Asked at ${timestamp(unit.start_ms)} by ${speakerName(unit)}`;
    const rationale = isOpen(analysis, unit)
      ? `${asker} and left open: the reply was uncertain or missing, so the conversation does not settle it.`
      : reply
        ? `${asker}; the reply at ${timestamp(reply.start_ms)} (${speakerName(reply)}) is the conversation's only answer and is worth checking against other sources.`
        : `${asker}; the conversation gives no further detail.`;
    return {
      question: unit.text,
      rationale,
      evidence: evidenceFor(analysis, [unit, ...replies]),
    };
  });
}

/** What makes a sentence checkable: figures, dates, comparisons, causes, decisions. */
function checkable(analysis: Analysis, unit: SentenceUnit): string[] {
  const kinds: string[] = [];
  if (NUMBER.test(unit.lower)) kinds.push('figures');
  if (statedDates(unit.text, analysis.referenceTime).length > 0) kinds.push('dates');
  if (COMPARISON.test(unit.lower)) kinds.push('a comparison');
  if (CAUSAL.test(unit.lower)) kinds.push('a cause');
  if (analysis.isDecision(unit)) kinds.push('a decision');
  return kinds;
}

function claims(analysis: Analysis): DeepResearchContent['claims'] {
  const tasks = new Set(analysis.actionItems.map((item) => item.unit.index));
  // Repeats dropped first, in time order: a kept claim cites its first time, and a task said again
  // is still the task (its first time is the action item).
  const scored = distinctBy(analysis.units, (unit) => unit.text)
    .filter(
      (unit) =>
        wordCount(unit) >= 5 &&
        new Set(unit.terms).size >= 2 &&
        !analysis.isQuestion(unit) &&
        !isNavigation(unit) &&
        !tasks.has(unit.index),
    )
    .map((unit) => ({ unit, kinds: checkable(analysis, unit) }))
    .filter((entry) => entry.kinds.length > 0)
    .map((entry) => ({
      ...entry,
      rank: analysis.rankOf.get(entry.unit.index) ?? analysis.units.length,
    }))
    .sort((a, b) => b.kinds.length - a.kinds.length || a.rank - b.rank || a.unit.index - b.unit.index)
    .slice(0, MAX_CLAIMS)
    .sort((a, b) => a.unit.index - b.unit.index);
  return scored.map(({ unit }) => ({
    claim: unit.text,
    evidence: evidenceFor(analysis, [unit]),
  }));
}

function gaps(analysis: Analysis): DeepResearchContent['gaps'] {
  const result: DeepResearchContent['gaps'] = [];
  const used = new Set<number>();
  for (const unit of analysis.openQuestions) {
    if (META_QUESTION.test(unit.lower) || analysis.isRequest(unit)) continue;
    const replies = replyTo(analysis, unit).filter((reply) => UNKNOWN.test(reply.lower));
    for (const reply of replies) used.add(reply.index);
    used.add(unit.index);
    result.push({
      gap: `Unanswered (${timestamp(unit.start_ms)}, ${speakerName(unit)}): ${unit.text}`,
      evidence: evidenceFor(analysis, [unit, ...replies]),
    });
  }
  // The open questions and their replies, by their words: their repeats at other times are no new gap.
  const quoted = analysis.units.filter((unit) => used.has(unit.index)).map((unit) => sentenceKey(unit.text));
  const unknown = analysis.units.filter(
    (unit) => !used.has(unit.index) && !analysis.isQuestion(unit) && UNKNOWN.test(unit.lower),
  );
  for (const unit of distinctBy(unknown, (candidate) => candidate.text)) {
    const key = sentenceKey(unit.text);
    if (quoted.some((other) => sameSentence(other, key))) continue;
    result.push({
      gap: `Not known yet (${timestamp(unit.start_ms)}, ${speakerName(unit)}): ${unit.text}`,
      evidence: evidenceFor(analysis, [unit]),
    });
  }
  // Tasks nobody owns are a gap; tasks without a date a smaller one, after the subjects dropped.
  const unowned = analysis.actionItems.filter((item) => item.owner === null);
  const undated = analysis.actionItems.filter((item) => item.owner !== null && item.due_date === null);
  for (const item of unowned) {
    result.push({
      gap: `A task with no owner${item.due_date === null ? ' and no date' : ''} (${timestamp(item.unit.start_ms)}): ${item.unit.text}`,
      evidence: evidenceFor(analysis, [item.unit]),
    });
  }
  result.push(...onceMentioned(analysis));
  for (const item of undated) {
    result.push({
      gap: `A task with no date (${timestamp(item.unit.start_ms)}, ${item.owner}): ${item.unit.text}`,
      evidence: evidenceFor(analysis, [item.unit]),
    });
  }
  return result.slice(0, MAX_GAPS).map((gap) => ({ ...gap, gap: shortened(gap.gap, 2000) }));
}

/**
 * Specific subjects raised once and never again: multi-word key phrases none of whose words recur,
 * said in a sentence central enough to rank. Best-ranked first.
 */
function onceMentioned(analysis: Analysis): DeepResearchContent['gaps'] {
  const found: { label: string; unit: SentenceUnit; rank: number }[] = [];
  for (const stats of analysis.phrases.values()) {
    if (stats.words < 2 || stats.count !== 1) continue;
    const words = stats.key.split(' ');
    if (words.some((word) => (analysis.phrases.get(word)?.count ?? 0) > 1)) continue;
    const index = [...stats.units][0] as number;
    const rank = analysis.rankOf.get(index);
    const unit = analysis.units[index];
    if (rank === undefined || !unit) continue;
    const label = [...stats.surfaces.keys()][0] ?? stats.key;
    found.push({ label, unit, rank });
  }
  const seen = new Set<number>();
  return found
    .sort((a, b) => a.rank - b.rank)
    .filter((entry) => !seen.has(entry.unit.index) && Boolean(seen.add(entry.unit.index)))
    .slice(0, MAX_ONCE_MENTIONED)
    .map(({ label, unit }) => ({
      gap: `Mentioned only once and not followed up: ${label} (${timestamp(unit.start_ms)}, ${speakerName(unit)}).`,
      evidence: evidenceFor(analysis, [unit]),
    }));
}

function nextSteps(analysis: Analysis): DeepResearchContent['next_steps'] {
  const steps: DeepResearchContent['next_steps'] = [];
  // Action items are listed once each already (findActionItems).
  for (const item of analysis.actionItems) {
    const details = [item.owner ? `owner: ${item.owner}` : 'no owner named'];
    if (item.due_date) details.push(`due ${item.due_date}`);
    steps.push({
      step: shortened(`${item.unit.text} (${details.join('; ')})`, 2000),
      evidence: evidenceFor(analysis, [item.unit]),
    });
    if (steps.length >= MAX_NEXT_STEPS) break;
  }
  return steps;
}

import { distinctBy } from '../../domain/distinct-items.ts';
import type { SentenceUnit } from './sentences.ts';
import { wordCount } from './sentences.ts';
import { DISCOURSE_MARKERS } from './words.ts';

const WH = new Set(['what', 'why', 'how', 'when', 'where', 'who', 'which', 'whose', 'whom']);
const AUX = new Set([
  'do',
  'does',
  'did',
  'is',
  'are',
  'was',
  'were',
  'can',
  'could',
  'will',
  'would',
  'should',
  'shall',
  'have',
  'has',
  'had',
  'may',
  'might',
  'am',
  'must',
  "don't",
  "doesn't",
  "isn't",
  "aren't",
  "can't",
  "won't",
  "shouldn't",
  "didn't",
]);
const SUBJECTS = new Set([
  'i',
  'you',
  'we',
  'they',
  'he',
  'she',
  'it',
  'there',
  'this',
  'that',
  'the',
  'anyone',
  'someone',
  'everyone',
]);
/** A reply that admits the question stays open. */
const UNCERTAIN =
  /\b(not sure|don't know|do not know|no idea|good question|hard to say|unclear|we'll see|need to (?:check|find out|figure out|ask)|have to (?:check|find out|figure out|ask)|find out|let me check|no answer|open question|tbd)\b/;
/** Tag questions and back-channels are not questions anyone has to answer. */
const TRIVIAL = /^(right|okay|ok|yeah|really|you know|isn't it|no|sorry|what|huh|pardon)\??$/;

/**
 * Interrogative sentences: ending with "?" when the transcript is punctuated; otherwise (local
 * recogniser, no "?") starting, after discourse markers, with a wh-word followed by a verb or "about",
 * or with an auxiliary followed by a subject ("is it", "can we", "do you").
 */
export function isQuestion(unit: SentenceUnit, punctuated: boolean): boolean {
  if (wordCount(unit) < 3 || TRIVIAL.test(unit.lower)) return false;
  if (punctuated) return unit.text.trimEnd().endsWith('?');
  const words = unit.tokens.filter((token) => token.pos !== 'PUNCT');
  let i = 0;
  while (i < words.length - 1 && DISCOURSE_MARKERS.has(words[i]?.lower ?? '')) i++;
  const first = words[i];
  const second = words[i + 1];
  if (!first || !second) return false;
  if (WH.has(first.lower)) {
    return (
      second.pos === 'AUX' ||
      second.pos === 'VERB' ||
      ['about', 'if', 'else', 'much', 'many', 'long'].includes(second.lower)
    );
  }
  return AUX.has(first.lower) && SUBJECTS.has(second.lower);
}

/**
 * Questions still open at the end of the exchange. The reply is what follows the question: the rest
 * of its own segment and the next segment, whoever speaks. Open when there is no reply at all (the
 * recording ends) or the reply admits uncertainty ("not sure", "no idea", "we need to check");
 * otherwise it counts as answered, which is generous: any substantive reply closes it.
 * Requests ("can you send...?") are tasks, not open questions: `isRequest` filters them out.
 * A question asked again is listed once, where it was first left open.
 */
export function openQuestions(
  units: readonly SentenceUnit[],
  isQuestionUnit: (unit: SentenceUnit) => boolean,
  isRequest: (unit: SentenceUnit) => boolean,
): SentenceUnit[] {
  const open: SentenceUnit[] = [];
  units.forEach((unit, i) => {
    if (!isQuestionUnit(unit) || isRequest(unit)) return;
    if (UNCERTAIN.test(unit.lower)) {
      open.push(unit);
      return;
    }
    const reply: SentenceUnit[] = [];
    let nextSegment: number | undefined;
    for (let k = i + 1; k < units.length; k++) {
      const candidate = units[k] as SentenceUnit;
      if (candidate.segmentIndex !== unit.segmentIndex) {
        if (nextSegment === undefined) nextSegment = candidate.segmentIndex;
        else if (candidate.segmentIndex !== nextSegment) break;
      }
      reply.push(candidate);
    }
    if (reply.length === 0 || reply.some((sentence) => UNCERTAIN.test(sentence.lower))) open.push(unit);
  });
  return distinctBy(open, (unit) => unit.text);
}

import type { UnitToken } from './sentences.ts';
import { DATE_WORDS, DISCOURSE_MARKERS, GENERIC_SUBJECTS } from './words.ts';

/**
 * Whether `tokens[i]` reads as a person's name in subject or vocative position. There is no PERSON
 * entity in the lite model, so: punctuated text needs a capitalised proper noun; unpunctuated
 * lower-case text (local recogniser) has no capitals, so a clause-initial noun is accepted when the
 * next verb is an action (not "be"): "tom will send" yes, "design will be ready" no.
 */
export function isName(tokens: readonly UnitToken[], i: number, punctuated: boolean): boolean {
  const token = tokens[i];
  if (!token || token.stop || token.temporal) return false;
  if (!/^\p{L}[\p{L}'-]+$/u.test(token.text)) return false;
  if (DATE_WORDS.has(token.lower) || GENERIC_SUBJECTS.has(token.lower) || token.lower === 'i') return false;
  if (punctuated) return token.pos === 'PROPN' && /^\p{Lu}/u.test(token.text);
  return (token.pos === 'PROPN' || token.pos === 'NOUN') && clauseInitial(tokens, i);
}

function clauseInitial(tokens: readonly UnitToken[], i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const previous = tokens[k];
    if (!previous || previous.pos === 'PUNCT') return true;
    if (!DISCOURSE_MARKERS.has(previous.lower)) return false;
  }
  return true;
}

/** "priya" → "Priya": lower-case transcripts still get a readable owner. */
export function displayName(token: UnitToken): string {
  return token.text.charAt(0).toUpperCase() + token.text.slice(1);
}

/** Verbs of commitment after which the subject owns the task: "<Name> will", "<Name> is going to". */
function commitmentAt(tokens: readonly UnitToken[], i: number): boolean {
  const word = tokens[i]?.lower;
  const next = tokens[i + 1]?.lower;
  const after = tokens[i + 2]?.lower;
  if (word === 'will' || word === "'ll") return true;
  if ((word === 'is' || word === "'s") && next === 'going' && after === 'to') return true;
  if ((word === 'needs' || word === 'has') && next === 'to') return true;
  return (
    word === 'can' && next !== undefined && ['take', 'handle', 'do', 'own', 'send', 'check'].includes(next)
  );
}

/** The name in "<Name> will ..." if any; in lower-case text only when an action verb follows. */
export function namedSubject(tokens: readonly UnitToken[], punctuated: boolean): string | null {
  for (let i = 1; i < tokens.length; i++) {
    if (!commitmentAt(tokens, i) || !isName(tokens, i - 1, punctuated)) continue;
    if (!punctuated) {
      const verb = tokens.slice(i + 1).find((token) => token.pos !== 'ADV' && token.pos !== 'PART');
      if (verb?.pos !== 'VERB') continue;
    }
    return displayName(tokens[i - 1] as UnitToken);
  }
  return null;
}

/** The addressee of a request: "Tom, can you ..." / "... by Friday, Tom?" / (lower case) "tom can you". */
export function addressee(tokens: readonly UnitToken[], punctuated: boolean): string | null {
  const words = tokens.filter((token) => token.pos !== 'PUNCT');
  if (punctuated) {
    const first = tokens[0];
    if (first && tokens[1]?.text === ',' && isName(tokens, 0, true)) return displayName(first);
    const lastWord = tokens.findLastIndex((token) => token.pos !== 'PUNCT');
    if (lastWord > 0 && tokens[lastWord - 1]?.text === ',' && isName(tokens, lastWord, true)) {
      return displayName(tokens[lastWord] as UnitToken);
    }
    return null;
  }
  for (let i = 0; i + 1 < words.length; i++) {
    const next = words[i + 1]?.lower;
    if ((next === 'can' || next === 'could' || next === 'would') && words[i + 2]?.lower === 'you') {
      if (isName(words, i, false)) return displayName(words[i] as UnitToken);
    }
  }
  return null;
}

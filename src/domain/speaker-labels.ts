import { UnprocessableError } from './errors.ts';

/**
 * Speaker labels and the names users give them. Engines label speakers `Speaker 1`, `Speaker 2`, ...
 * Stored transcripts and generated results keep the labels; the names (the note's `speaker_names`)
 * are put in when a result is read, so a rename never rewrites anything and is shown at once.
 */

/** Display names chosen by the user for the engine's labels (`Speaker 1` -> `Alice`). */
export type SpeakerNames = Record<string, string>;

const LABEL = /^Speaker [1-9][0-9]{0,2}$/;
/** A label inside free text: whole, so that `Speaker 1` never matches the start of `Speaker 10`. */
const LABEL_IN_TEXT = /\bSpeaker [1-9][0-9]{0,2}(?![0-9])/g;

export function isSpeakerLabel(speaker: string): boolean {
  return LABEL.test(speaker);
}

/** The name given to a label, else the label (any other speaker as it is). */
export function displayName(speaker: string, names: SpeakerNames | undefined): string {
  return names?.[speaker] ?? speaker;
}

/** Every whole label in `text` replaced by its name; labels without a name stay. */
export function namedInText(text: string, names: SpeakerNames | undefined): string {
  if (!names || Object.keys(names).length === 0) return text;
  return text.replace(LABEL_IN_TEXT, (label) => names[label] ?? label);
}

/**
 * The label `set_speaker` stores for what the user wrote: a label as it is (one the transcript
 * already uses, or a new one: a new speaker), a name given with updateNote as its label, or a
 * speaker the transcript already has under another form (transcripts from engines with other
 * labels). Anything else is refused, since a bare name could never be renamed: names belong to labels.
 */
export function labelForSpeaker(
  speaker: string,
  names: SpeakerNames | undefined,
  present: ReadonlySet<string>,
  edit: string,
): string {
  if (isSpeakerLabel(speaker)) return speaker;
  const named = Object.entries(names ?? {}).filter(([, name]) => name === speaker);
  if (named.length === 1) return (named[0] as [string, string])[0];
  if (named.length > 1) {
    throw new UnprocessableError(
      `${edit}: ${named.length} speakers are named "${speaker}" (${named.map(([label]) => label).join(', ')}): give the label of the one you mean`,
    );
  }
  if (present.has(speaker)) return speaker;
  throw new UnprocessableError(
    `${edit}: "${speaker}" is neither a speaker label nor the name of one of this note's speakers. Give a label such as "Speaker 2" or a name set with updateNote (speaker_names); for a new speaker give a label the transcript does not use yet (the next free one is "${nextFreeLabel(present, names)}") and name it with updateNote.`,
  );
}

/** The lowest-numbered label that neither the transcript nor the names use. */
export function nextFreeLabel(present: Iterable<string>, names: SpeakerNames | undefined): string {
  const used = new Set([...present, ...Object.keys(names ?? {})]);
  let n = 1;
  while (used.has(`Speaker ${n}`)) n += 1;
  return `Speaker ${n}`;
}

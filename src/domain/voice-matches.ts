import type { Note, NoteChanges } from './note.ts';

/**
 * The speakers of a note named after a known voice (`voice_matches`), and what ends a match: a new
 * transcript (its labels name other turns), a person rejecting it, or a person naming the speaker
 * otherwise. A suggested match's name goes with it; a confirmed one's is the person's own.
 */

/**
 * The matches of these labels removed, with the names they gave: a suggested match's always (it was
 * never the person's word); a confirmed one's too when `names` is `given` (the person now says the
 * name is wrong), never when a new transcript ends it (then the name is the person's, like any name).
 */
export function withoutMatches(
  note: Note,
  labels: readonly string[],
  { names: which }: { names: 'suggested' | 'given' } = { names: 'suggested' },
): NoteChanges {
  if (labels.length === 0) return {};
  const names: Record<string, null> = {};
  for (const label of labels) {
    const match = note.voice_matches?.[label];
    const gave = match && note.speaker_names?.[label] === match.name;
    if (gave && (which === 'given' || match.status === 'suggested')) names[label] = null;
  }
  return {
    voice_matches: Object.fromEntries(labels.map((label) => [label, null])),
    ...(Object.keys(names).length > 0 ? { speaker_names: names } : {}),
  };
}

/**
 * The voice matches a change of speaker names ends: a person naming a matched speaker otherwise has
 * the last word. Empty when nothing ends.
 */
export function matchesEndedByNames(note: Note, changes: NoteChanges): NoteChanges {
  const ended = Object.entries(changes.speaker_names ?? {})
    .filter(([label, name]) => note.voice_matches?.[label] && note.voice_matches[label]?.name !== name)
    .map(([label]) => label);
  return ended.length > 0 ? { voice_matches: Object.fromEntries(ended.map((label) => [label, null])) } : {};
}

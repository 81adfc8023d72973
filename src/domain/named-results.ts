import type { Artifact } from './artifacts.ts';
import type { Insights } from './insights.ts';
import { displayName, namedInText, type SpeakerNames } from './speaker-labels.ts';

/**
 * Generated results as the API shows them: speaker labels replaced by the names the user gave them
 * now (updateNote `speaker_names`). Engines write labels (`Speaker 1`) and results are stored as
 * written, so a rename made after generation shows at once, without generating again. Only whole
 * labels are replaced (`Speaker 1` never rewrites `Speaker 10`), in every text of the result.
 */

/** A talk-time entry as shown: the name, and the label it stands for. */
export type SpeakerShareView = Insights['speakers'][number] & { speaker_label: string };
export type InsightsView = Omit<Insights, 'speakers'> & { speakers: SpeakerShareView[] };

export function insightsWithNames<T extends Insights>(
  insights: T,
  names: SpeakerNames | undefined,
): Omit<T, 'speakers'> & { speakers: SpeakerShareView[] } {
  const { speakers, ...rest } = insights;
  return {
    ...namedStrings(rest, names),
    speakers: speakers.map((share) => ({
      ...share,
      speaker: displayName(share.speaker, names),
      speaker_label: share.speaker,
    })),
  };
}

/** The artifact's content with names; its title (the note's title) and metadata stay as they are. */
export function artifactWithNames<T extends Artifact>(artifact: T, names: SpeakerNames | undefined): T {
  return { ...artifact, content: namedStrings(artifact.content, names) };
}

/** Every string inside `value` (objects and arrays walked) with its labels named. */
export function namedStrings<T>(value: T, names: SpeakerNames | undefined): T {
  if (!names || Object.keys(names).length === 0) return value;
  return walk(value, names) as T;
}

function walk(value: unknown, names: SpeakerNames): unknown {
  if (typeof value === 'string') return namedInText(value, names);
  if (Array.isArray(value)) return value.map((item) => walk(item, names));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, names)]));
  }
  return value;
}

import { matchesPartOf, matchesStrongly, partedEntityTag, type TagCondition } from './entity-tags.ts';
import type { TranscriptionView } from './transcript-exports.ts';

/**
 * The entity tag of a transcript's JSON representation (see docs/api-decisions.md, "Speaker names
 * and the transcript's ETag"): a parted tag, `"<segments>.<representation>"`.
 *
 * - the second part covers every byte of the representation, names included, so the tag is strong
 *   and changes whenever the body does (a GET with If-None-Match never answers 304 after a rename);
 * - the first covers the representation without the names (each segment's `speaker_label` kept,
 *   its display `speaker` and the name-bearing `timestamped_full_text` left out): what a correction
 *   depends on. Corrections compare only this part, so a rename (names live on the note, with its
 *   own ETag) never makes a correction made against the transcript read before it fail.
 *
 * The tag stays opaque to clients: they send back what the ETag header gave them.
 */
export function transcriptEntityTag(view: TranscriptionView): string {
  return partedEntityTag(withoutNames(view), view);
}

/** If-Match for a correction: `*`, or a strong tag of this transcript's segments under any names. */
export function matchesSegmentsOf(condition: TagCondition, view: TranscriptionView): boolean {
  return matchesPartOf(condition, transcriptEntityTag(view));
}

/** If-Match naming this exact representation, names included. */
export function matchesRepresentationOf(condition: TagCondition, view: TranscriptionView): boolean {
  return matchesStrongly(condition, transcriptEntityTag(view));
}

function withoutNames(view: TranscriptionView): object {
  const { timestamped_full_text: _named, conversation_segments, ...rest } = view;
  return {
    ...rest,
    conversation_segments: conversation_segments.map(({ speaker, speaker_label, ...segment }) => ({
      ...segment,
      // A view always carries the label; a stored transcript's speaker is its label.
      speaker_label: speaker_label ?? speaker,
    })),
  };
}

import { clock } from '../format.ts';
import type { Segment } from '../types.ts';

/** Segments findSimilarSegments found, in the revision `etag` names. */
export interface Suggestion {
  label: string;
  segments: number[];
  etag: string;
}

const TIMES_SHOWN = 4;

/**
 * "Apply to similar segments", offered after a change of speaker: how many other segments sound like
 * the speaker, where they are, and one button to give them all (one correction: Undo takes it back).
 */
export function SimilarSuggestion({
  suggestion,
  name,
  segments,
  onApply,
  onDismiss,
}: {
  suggestion: Suggestion;
  name: string;
  segments: readonly Segment[];
  onApply(): void;
  onDismiss(): void;
}) {
  const count = suggestion.segments.length;
  const times = suggestion.segments
    .slice(0, TIMES_SHOWN)
    .map((index) => clock(segments[index]?.start_ms ?? 0))
    .join(', ');
  const more = count > TIMES_SHOWN ? ` and ${count - TIMES_SHOWN} more` : '';
  return (
    <section class="suggestion" aria-label="Similar segments">
      <p>
        {count === 1 ? 'One more segment sounds' : `${count} more segments sound`} like {name} (at {times}
        {more}).
      </p>
      <div class="actions">
        <button type="button" onClick={onApply}>
          Give {count === 1 ? 'it' : `all ${count}`} to {name}
        </button>
        <button type="button" class="quiet" onClick={onDismiss}>
          Not now
        </button>
      </div>
    </section>
  );
}

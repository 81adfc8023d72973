import { Fragment } from 'preact';
import { href } from '../router.ts';
import type { InstructionsUsed } from '../types.ts';

/**
 * Beside a generated result: which collections' instructions it was made with, or, for the engine
 * that picks sentences from the transcript, plainly that it could not follow them. Nothing when the
 * note was in no collection with instructions.
 */
export function InstructionsUsedNote({ used }: { used: InstructionsUsed | null | undefined }) {
  if (!used || used.collections.length === 0) return null;
  const names = used.collections.map((collection, index) => (
    <Fragment key={collection.collection_id}>
      {separator(index, used.collections.length)}
      <a href={href('', { collection: collection.collection_id })}>{collection.name}</a>
    </Fragment>
  ));
  const plural = used.collections.length > 1 ? 'collections’' : 'collection’s';
  return used.followed ? (
    <p class="meta instructions-used">
      Written following the instructions of {names} (the {plural} instructions).
    </p>
  ) : (
    <p class="meta instructions-used">
      Picked from the transcript: this engine cannot follow the {plural} instructions ({names}), so they were
      not applied.
    </p>
  );
}

/** ", " between names, " and " before the last. */
function separator(index: number, count: number): string {
  if (index === 0) return '';
  return index === count - 1 ? ' and ' : ', ';
}

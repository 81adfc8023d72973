import type { Collection } from './collection.ts';
import type { Note } from './note.ts';

export const DAY_MS = 86_400_000;

/** When the retention period of one of these collections runs out for the note; null when never. */
export function retentionEnds(
  note: Note,
  filed: readonly Collection[],
): { at: number; collection: Collection } | null {
  if (note.state !== 'active' || note.protected) return null;
  let soonest: { at: number; collection: Collection } | null = null;
  for (const collection of filed) {
    if (!collection.retention_days) continue;
    const at = retentionStart(note) + collection.retention_days * DAY_MS;
    if (!soonest || at < soonest.at) soonest = { at, collection };
  }
  return soonest;
}

/** A note restored from the trash starts a whole period again. */
function retentionStart(note: Note): number {
  return Math.max(note.created_at, note.restored_at ?? 0);
}

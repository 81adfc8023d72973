import { NOTE_HISTORY_KEPT, type Note, type NoteChanges, type NoteEvent } from './note.ts';

/**
 * The note with the changes applied at `now`, as the store writes it (version aside): trashing,
 * restoring and protecting are written into its history, and who did it (a person, or a collection's
 * retention period) with them.
 */
export function changedNote(expected: Note, changes: NoteChanges, now: number): Note {
  const next: Note = { ...expected, updated_at: now };
  const events: NoteEvent[] = [];
  if (changes.title !== undefined) next.title = changes.title;
  if (changes.speaker_names !== undefined)
    next.speaker_names = merged(expected.speaker_names, changes.speaker_names);
  if (changes.voice_matches !== undefined)
    next.voice_matches = merged(expected.voice_matches, changes.voice_matches);
  if (changes.state !== undefined && changes.state !== expected.state) {
    next.state = changes.state;
    next.trashed_at = changes.state === 'trashed' ? now : null;
    delete next.deletes_at;
    if (changes.state === 'active') {
      next.restored_at = now;
      events.push({ at: now, event: 'restored', by: 'person' });
    } else if (changes.retention) {
      next.deletes_at = changes.retention.deletes_at;
      events.push({
        at: now,
        event: 'trashed',
        by: 'retention',
        collection: changes.retention.collection,
        deletes_at: changes.retention.deletes_at,
      });
    } else events.push({ at: now, event: 'trashed', by: 'person' });
  }
  if (changes.protected !== undefined && changes.protected !== (expected.protected ?? false)) {
    // Kept from the retention, a note it trashed is no longer deleted with the trash period.
    if (changes.protected) {
      next.protected = true;
      delete next.deletes_at;
    } else delete next.protected;
    events.push({ at: now, event: changes.protected ? 'protected' : 'unprotected', by: 'person' });
  }
  if (events.length > 0) next.history = [...(expected.history ?? []), ...events].slice(-NOTE_HISTORY_KEPT);
  return next;
}

/** The entries of `current` with `changes` applied: a null removes its key. */
function merged<T>(
  current: Record<string, T> | undefined,
  changes: Record<string, T | null>,
): Record<string, T> {
  const entries = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete entries[key];
    else entries[key] = value;
  }
  return entries;
}

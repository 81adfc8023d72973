import type { Collection } from './collection.ts';
import { collectionRef } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import { syncNoteIndex } from './note-index.ts';
import { deleteNote } from './notes.ts';
import { DAY_MS, retentionEnds } from './retention-period.ts';

/**
 * Retention: a collection with a retention period moves its notes to the trash that many days after
 * they were made (or last restored from the trash), unless a person protected them; a note in several
 * such collections goes at the shortest period. The retention deletes the notes it trashed for good
 * after the trash period (NOTES_TRASH_DAYS); notes a person trashed stay until a person deletes them.
 * Both steps are written into the note's history (the deletion is announced in the trashing's entry,
 * since a deleted note has no page). One pass does both; passes are idempotent (each change is a
 * write conditional on the note's version) and may run anywhere, at any time, more than once.
 */
export interface RetentionPass {
  trashed: number;
  deleted: number;
  /** Notes that could not be handled in this pass (the next one tries again). */
  errors: number;
}

export interface RetentionOptions {
  trashDays: number;
  /** Called for each note this pass could not handle (IDs only). */
  onError?: (noteId: string, error: unknown) => void;
}

export async function applyRetention(deps: DomainDeps, options: RetentionOptions): Promise<RetentionPass> {
  const pass: RetentionPass = { trashed: 0, deleted: 0, errors: 0 };
  const attempt = async (noteId: string, step: () => Promise<boolean>, count: 'trashed' | 'deleted') => {
    try {
      if (await step()) pass[count] += 1;
    } catch (error) {
      pass.errors += 1;
      options.onError?.(noteId, error);
    }
  };
  const now = deps.now();
  for await (const { accountId, collectionId } of deps.collections.retainingCollections()) {
    const collection = await deps.collections.getCollection(accountId, collectionId);
    if (!collection?.retention_days) continue;
    const madeBefore = now - collection.retention_days * DAY_MS;
    for await (const noteId of deps.collections.notesCreatedBefore(accountId, collectionId, madeBefore)) {
      await attempt(noteId, () => trashIfDue(deps, collection, noteId, now, options.trashDays), 'trashed');
    }
  }
  for await (const due of deps.notes.deletionsDue(now)) {
    await attempt(
      due.noteId,
      async () => {
        const note = await deps.notes.getNote(due.accountId, due.noteId);
        // Restored, or trashed again later (its own entry comes then), or already gone: not now.
        const deleting = note?.state === 'trashed' && note.deletes_at !== undefined && note.deletes_at <= now;
        if (deleting) await deleteNote(deps, due.accountId, due.noteId);
        await deps.notes.forgetDeletion(due);
        return deleting;
      },
      'deleted',
    );
  }
  return pass;
}

/** Tries a few times when the note changes under it (a rename, a correction); the next pass tries again. */
const TRASH_TRIES = 3;

async function trashIfDue(
  deps: DomainDeps,
  collection: Collection,
  noteId: string,
  now: number,
  trashDays: number,
): Promise<boolean> {
  const accountId = collection.account_id;
  for (let tries = 0; tries < TRASH_TRIES; tries += 1) {
    const note = await deps.notes.getNote(accountId, noteId);
    const ends = note && retentionEnds(note, [collection]);
    if (!note || !ends || ends.at > now) return false;
    const deletesAt = now + trashDays * DAY_MS;
    // Scheduled first: a pass stopped between the two writes leaves an entry that is dropped when due.
    await deps.notes.scheduleDeletion({ accountId, noteId, deletesAt });
    const trashed = await deps.notes.updateNoteIf(
      note,
      { state: 'trashed', retention: { collection: collectionRef(collection), deletes_at: deletesAt } },
      now,
    );
    if (trashed) {
      await syncNoteIndex(deps, accountId, noteId);
      return true;
    }
  }
  return false;
}

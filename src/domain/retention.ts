import type { Collection } from './collection.ts';
import { collectionRef } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import type { Note } from './note.ts';
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
    // Read a hundred at a time: most old notes of a collection are already trashed or protected.
    for await (const noteIds of inBatches(
      deps.collections.notesCreatedBefore(accountId, collectionId, madeBefore),
      READ_BATCH,
    )) {
      const notes = await deps.notes.getNotes(accountId, noteIds);
      for (const note of notes.values()) {
        if (!isDue(note, collection, now)) continue;
        await attempt(
          note.note_id,
          () => trashIfDue(deps, collection, note.note_id, now, options.trashDays),
          'trashed',
        );
      }
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

const READ_BATCH = 100;

async function* inBatches<T>(items: AsyncIterable<T>, size: number): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function isDue(note: Note | null, collection: Collection, now: number): note is Note {
  const ends = note && retentionEnds(note, [collection]);
  return Boolean(ends && ends.at <= now);
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
    if (!isDue(note, collection, now)) return false;
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

import type { Collection, CollectionChanges } from '../domain/collection.ts';
import type { Note } from '../domain/note.ts';

export interface MemberPage {
  noteIds: string[];
  nextCursor: string | null;
}

/**
 * Collections and which notes they hold. Every method takes the account ID: an implementation must
 * make it impossible to read or change another account's collections.
 *
 * Names are unique per account (compared by `nameKey`): creating or renaming to a name another
 * collection has throws ConflictError.
 */
export interface CollectionStore {
  createCollection(collection: Collection): Promise<void>;
  getCollection(accountId: string, collectionId: string): Promise<Collection | null>;
  /** Several collections by ID (absent when there is none). */
  getCollections(accountId: string, collectionIds: string[]): Promise<Map<string, Collection>>;
  /** Every collection of the account (at most COLLECTION_LIMITS.perAccount), in no particular order. */
  listCollections(accountId: string): Promise<Collection[]>;
  /**
   * Renames the collection and/or sets its instructions and retention period (`null`: none), in one
   * write; null when there is no such collection.
   */
  updateCollection(
    accountId: string,
    collectionId: string,
    changes: CollectionChanges,
    now: number,
  ): Promise<Collection | null>;
  /** Removes the collection and its filings, never the notes; nothing happens when there is none. */
  deleteCollection(accountId: string, collectionId: string): Promise<void>;

  /** Files the note in the collection; filing it again changes nothing. */
  addNote(accountId: string, collectionId: string, note: Note, now: number): Promise<void>;
  /** Nothing happens when the note is not filed there. */
  removeNote(accountId: string, collectionId: string, noteId: string): Promise<void>;
  /** The collection's notes, newest note first. `cursor` is opaque; an invalid one throws BadRequestError. */
  notesIn(
    accountId: string,
    collectionId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<MemberPage>;
  /** Every note ID filed in the collection. */
  allNotesIn(accountId: string, collectionId: string): Promise<string[]>;

  /**
   * Across accounts, for the retention: every collection that has a retention period, and perhaps a
   * few that no longer have (read each one before acting on it).
   */
  retainingCollections(): AsyncIterable<{ accountId: string; collectionId: string }>;
  /** The IDs of the collection's notes made before `createdBefore` (epoch ms), oldest first. */
  notesCreatedBefore(accountId: string, collectionId: string, createdBefore: number): AsyncIterable<string>;
}

import { randomUUID } from 'node:crypto';
import {
  byName,
  COLLECTION_LIMITS,
  type Collection,
  type CollectionChanges,
  type CollectionRef,
  type CollectionView,
  collectionView,
} from './collection.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import type { Note, NoteState } from './note.ts';
import { requireNoteWithItems } from './note-lookup.ts';

/** Where a note is filed, as the filing operations answer. */
export interface NoteCollections {
  note_id: string;
  collections: CollectionRef[];
}

export async function requireCollection(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
): Promise<Collection> {
  const collection = await deps.collections.getCollection(accountId, collectionId);
  if (!collection) throw new NotFoundError(`No collection with ID ${collectionId}`);
  return collection;
}

export async function createCollection(
  deps: DomainDeps,
  accountId: string,
  request: {
    name: string;
    instructions?: string | null | undefined;
    retention_days?: number | null | undefined;
  },
): Promise<CollectionView> {
  const existing = await deps.collections.listCollections(accountId);
  if (existing.length >= COLLECTION_LIMITS.perAccount) {
    throw new ConflictError(
      `An account can have at most ${COLLECTION_LIMITS.perAccount} collections; delete one (deleteCollection keeps its notes) before creating another`,
    );
  }
  const now = deps.now();
  const collection: Collection = {
    account_id: accountId,
    collection_id: randomUUID(),
    name: request.name,
    ...(request.instructions ? { instructions: request.instructions } : {}),
    ...(request.retention_days ? { retention_days: request.retention_days } : {}),
    created_at: now,
    updated_at: now,
  };
  await deps.collections.createCollection(collection);
  return collectionView(collection);
}

export async function listCollections(
  deps: DomainDeps,
  accountId: string,
): Promise<{ collections: CollectionView[] }> {
  const collections = await deps.collections.listCollections(accountId);
  return { collections: collections.sort(byName).map(collectionView) };
}

/**
 * Renames the collection and/or sets or clears its instructions (`null` or an empty text: none) and
 * its retention period (`null`: none). Insights and artifacts of its notes made with other
 * instructions then say so (`outdated`); a new period applies from the next retention pass.
 */
export async function updateCollection(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
  changes: CollectionChanges,
): Promise<CollectionView> {
  const updated = await deps.collections.updateCollection(
    accountId,
    collectionId,
    {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.instructions === undefined ? {} : { instructions: changes.instructions || null }),
      ...(changes.retention_days === undefined ? {} : { retention_days: changes.retention_days }),
    },
    deps.now(),
  );
  if (!updated) throw new NotFoundError(`No collection with ID ${collectionId}`);
  return collectionView(updated);
}

/** Removes the collection and its filings; the notes themselves stay as they are. */
export async function deleteCollection(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
): Promise<void> {
  await requireCollection(deps, accountId, collectionId);
  await deps.collections.deleteCollection(accountId, collectionId);
}

export async function addNoteToCollection(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
  noteId: string,
): Promise<NoteCollections> {
  // The note comes with its filings; the answer is those filings with this one (no second read).
  const [collection, { note, collectionIds }] = await Promise.all([
    requireCollection(deps, accountId, collectionId),
    requireNoteWithItems(deps, accountId, noteId),
  ]);
  const filed = await namedCollections(deps, accountId, collectionIds);
  const already = filed.some((ref) => ref.collection_id === collection.collection_id);
  if (!already && filed.length >= COLLECTION_LIMITS.perNote) {
    throw new ConflictError(
      `A note can be in at most ${COLLECTION_LIMITS.perNote} collections; remove it from one first (removeNoteFromCollection)`,
    );
  }
  if (already) return { note_id: noteId, collections: filed };
  await deps.collections.addNote(accountId, collectionId, note, deps.now());
  const added = collectionRef(collection);
  return { note_id: noteId, collections: [...filed, added].sort(byName) };
}

export async function removeNoteFromCollection(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
  noteId: string,
): Promise<NoteCollections> {
  const [, { collectionIds }] = await Promise.all([
    requireCollection(deps, accountId, collectionId),
    requireNoteWithItems(deps, accountId, noteId),
  ]);
  await deps.collections.removeNote(accountId, collectionId, noteId);
  // The note's other filings, as read with the note.
  const others = collectionIds.filter((id) => id !== collectionId);
  return { note_id: noteId, collections: await namedCollections(deps, accountId, others) };
}

/** The collections of these IDs that still exist, by name: a filing whose collection is being deleted is not shown. */
export async function filedCollections(
  deps: DomainDeps,
  accountId: string,
  ids: readonly string[],
): Promise<Collection[]> {
  if (ids.length === 0) return [];
  const found = await deps.collections.getCollections(accountId, [...ids]);
  return [...found.values()].sort(byName);
}

export function collectionRef(collection: Collection): CollectionRef {
  return { collection_id: collection.collection_id, name: collection.name };
}

/** As filedCollections, as references. */
export async function namedCollections(
  deps: DomainDeps,
  accountId: string,
  ids: string[],
): Promise<CollectionRef[]> {
  return (await filedCollections(deps, accountId, ids)).map(collectionRef);
}

/** Enough pages of filings are read to fill the page with notes in the requested state, at most this many. */
const MAX_FILING_READS = 10;

/**
 * One page of the collection's notes in the given state, newest first. Filings do not know a note's
 * state, so notes in the other state are skipped; a page may then hold fewer than `limit` notes while
 * `next_cursor` still leads further.
 */
export async function notesInCollection(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
  query: { state: NoteState; limit: number; cursor?: string | undefined },
): Promise<{ notes: Note[]; nextCursor: string | null }> {
  await requireCollection(deps, accountId, collectionId);
  const notes: Note[] = [];
  let cursor = query.cursor;
  let nextCursor: string | null = null;
  for (let read = 0; read < MAX_FILING_READS && notes.length < query.limit; read++) {
    const page = await deps.collections.notesIn(accountId, collectionId, query.limit - notes.length, cursor);
    const found = await deps.notes.getNotes(accountId, page.noteIds);
    for (const noteId of page.noteIds) {
      const note = found.get(noteId);
      if (note?.state === query.state) notes.push(note);
    }
    nextCursor = page.nextCursor;
    if (!nextCursor) break;
    cursor = nextCursor;
  }
  return { notes, nextCursor };
}

/**
 * A collection: a named group of notes, owned by one account. A note can be in several collections
 * at once (tags, not folders: see docs/api-decisions.md); removing a collection never removes notes.
 */
export interface Collection {
  account_id: string;
  collection_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

/** The contract's limits (openapi.yaml, Collection and CollectionRequest). */
export const COLLECTION_LIMITS = {
  nameCharacters: 100,
  perAccount: 100,
  perNote: 20,
} as const;

/** Collection names are unique per account whatever their case or Unicode form ("Q3" and "q3" clash). */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/** What the API shows of a collection. */
export interface CollectionView {
  collection_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export function collectionView(collection: Collection): CollectionView {
  return {
    collection_id: collection.collection_id,
    name: collection.name,
    created_at: collection.created_at,
    updated_at: collection.updated_at,
  };
}

/** Where a note is filed, as getNote and the filing operations show it. */
export interface CollectionRef {
  collection_id: string;
  name: string;
}

export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name.localeCompare(b.name) || a.name.length - b.name.length;
}

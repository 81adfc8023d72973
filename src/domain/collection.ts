/**
 * A collection: a named group of notes, owned by one account. A note can be in several collections
 * at once (tags, not folders: see docs/api-decisions.md); removing a collection never removes notes.
 */
export interface Collection {
  account_id: string;
  collection_id: string;
  name: string;
  /**
   * What the person wants the Insights and artifacts of the collection's notes to do (content and
   * emphasis), given to the text engines (src/domain/collection-instructions.ts). Absent when none.
   */
  instructions?: string;
  /**
   * Notes filed here move to the trash this many days after they were made (or last restored), unless
   * protected (src/domain/retention.ts). Absent: kept until a person trashes them.
   */
  retention_days?: number;
  created_at: number;
  updated_at: number;
}

/** The contract's limits (openapi.yaml, Collection, CreateCollectionRequest and UpdateCollectionRequest). */
export const COLLECTION_LIMITS = {
  nameCharacters: 100,
  instructionsCharacters: 1000,
  /** Ten years. */
  retentionDays: 3650,
  perAccount: 100,
  perNote: 20,
} as const;

/**
 * A change of a collection (updateCollection): a new name, new instructions or retention period, or
 * `null` to clear them.
 */
export interface CollectionChanges {
  name?: string;
  instructions?: string | null;
  retention_days?: number | null;
}

/** Collection names are unique per account whatever their case or Unicode form ("Q3" and "q3" clash). */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/** What the API shows of a collection. */
export interface CollectionView {
  collection_id: string;
  name: string;
  /** Null when the collection has none. */
  instructions: string | null;
  /** Null when its notes are kept until a person trashes them. */
  retention_days: number | null;
  created_at: number;
  updated_at: number;
}

export function collectionView(collection: Collection): CollectionView {
  return {
    collection_id: collection.collection_id,
    name: collection.name,
    instructions: collection.instructions ?? null,
    retention_days: collection.retention_days ?? null,
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

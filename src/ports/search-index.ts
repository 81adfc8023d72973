/** A note as the index sees it: its terms with their frequencies, and its length in terms. */
export interface IndexedDocument {
  terms: Map<string, number>;
  length: number;
  /**
   * Orders the contents of one note (higher is newer; 0 when omitted): the index keeps the newest
   * content it was given, so a re-indexing that finishes late never puts older words back.
   */
  version?: number;
}

/**
 * Which part of the account's index a note is in. Active notes are what Ask and a default search read;
 * trashed notes keep their postings in a partition of their own (own weights, document frequencies and
 * counts), so they can be searched when asked without ever weighing in Ask's ranking or reaching it.
 */
export type IndexPartition = 'active' | 'trashed';

export interface SearchHit {
  note_id: string;
  /** BM25 score over the question's terms; only comparable within one search. */
  score: number;
  /** The question terms this note contains. */
  terms: string[];
  /** The note's length in indexed terms (stop words left out): what reading its transcript costs. */
  length: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Inverse document frequency of each question term the index knows (for ranking passages). */
  idf: Map<string, number>;
  /** How many notes of the searched partitions are in the index (0: nothing to search at all). */
  indexedNotes: number;
}

/**
 * The per-account full-text index behind Ask and search: notes are added when their transcript
 * completes, moved between partitions when they are trashed or restored, and removed when their
 * results are deleted or they are deleted. Searching costs a few reads per question term, whatever the
 * number of notes, so it is not a scan of every transcript. Every method takes the account ID; no
 * search can reach another account's notes.
 */
export interface SearchIndex {
  /**
   * Puts the note's content in a partition, unless a newer version of it is there: a note not yet in
   * the index is added; one in the index is changed in place (only the terms whose frequency changed),
   * so it stays searchable meanwhile. Adding the same version twice is harmless.
   */
  add(
    accountId: string,
    noteId: string,
    document: IndexedDocument,
    partition?: IndexPartition,
  ): Promise<void>;
  /** Removes a note and all its entries; nothing happens when it is not in the index. */
  remove(accountId: string, noteId: string): Promise<void>;
  /** The partition a note is completely indexed in, or null (absent, or being added or removed). */
  indexedIn(accountId: string, noteId: string): Promise<IndexPartition | null>;
  /** How many notes of the account are in a partition (active unless named). */
  size(accountId: string, partition?: IndexPartition): Promise<number>;
  /**
   * The best `limit` notes for the terms, best first, from the named partitions (active only unless
   * named). With `noteIds`, only those notes are scored. Notes without any of the terms are not returned.
   */
  search(
    accountId: string,
    terms: string[],
    options: { limit: number; noteIds?: readonly string[]; partitions?: readonly IndexPartition[] },
  ): Promise<SearchResult>;
}

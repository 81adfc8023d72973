/** A note as the index sees it: its terms with their frequencies, and its length in terms. */
export interface IndexedDocument {
  terms: Map<string, number>;
  length: number;
}

export interface SearchHit {
  note_id: string;
  /** BM25 score over the question's terms; only comparable within one search. */
  score: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Inverse document frequency of each question term the index knows (for ranking passages). */
  idf: Map<string, number>;
  /** How many notes of the account are in the index (0: nothing to search at all). */
  indexedNotes: number;
}

/**
 * The per-account full-text index behind Ask: notes are added when their transcript completes and
 * removed when they are trashed, their results are deleted or they are deleted. Searching costs a few
 * reads per question term, whatever the number of notes, so it is not a scan of every transcript.
 * Every method takes the account ID; no search can reach another account's notes.
 */
export interface SearchIndex {
  /** Adds a note unless it is already in the index (adding twice is harmless). */
  add(accountId: string, noteId: string, document: IndexedDocument): Promise<void>;
  /** Removes a note and all its entries; nothing happens when it is not in the index. */
  remove(accountId: string, noteId: string): Promise<void>;
  isIndexed(accountId: string, noteId: string): Promise<boolean>;
  /** How many notes of the account are in the index. */
  size(accountId: string): Promise<number>;
  /**
   * The best `limit` notes for the terms, best first. With `noteIds`, only those notes are scored.
   * Notes without any of the terms are not returned.
   */
  search(
    accountId: string,
    terms: string[],
    options: { limit: number; noteIds?: readonly string[] },
  ): Promise<SearchResult>;
}

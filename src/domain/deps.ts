import type { BlobStore } from '../ports/blob-store.ts';
import type { NoteStore } from '../ports/note-store.ts';
import type { SearchIndex } from '../ports/search-index.ts';
import type { WorkQueue } from '../ports/work-queue.ts';

/** What the use cases need from the outside world; wired in src/services.ts. */
export interface DomainDeps {
  notes: NoteStore;
  blobs: BlobStore;
  queue: WorkQueue;
  /** The full-text index behind Ask. */
  search: SearchIndex;
  now: () => number;
}

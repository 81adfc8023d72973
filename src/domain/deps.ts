import type { BlobStore } from '../ports/blob-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { NoteStore } from '../ports/note-store.ts';
import type { SearchIndex } from '../ports/search-index.ts';
import type { VoiceProfileStore } from '../ports/voice-profile-store.ts';
import type { WorkQueue } from '../ports/work-queue.ts';

/** What the use cases need from the outside world; wired in src/wiring/services.ts. */
export interface DomainDeps {
  notes: NoteStore;
  /** Collections and the notes filed in them. */
  collections: CollectionStore;
  /** Voices known across notes, and whether the account keeps them. */
  voiceProfiles: VoiceProfileStore;
  blobs: BlobStore;
  queue: WorkQueue;
  /** The full-text index behind Ask. */
  search: SearchIndex;
  now: () => number;
  /** How long a worker's claim on a job lasts without renewal (default DEFAULT_JOB_LEASE_MS). */
  jobLeaseMs?: number;
  /** Operational warnings (object keys and IDs only, never content). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
  /** Where workers keep temporary files (default: the system temp folder). */
  scratchRoot?: string;
  /** Aborted when the runtime stops its workers (the local runtime's drain deadline). */
  stopSignal?: () => AbortSignal;
}

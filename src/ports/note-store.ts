import type { Job, JobKind, JobWait } from '../domain/job.ts';
import type { AudioInfo, Note, NoteChanges, NoteState } from '../domain/note.ts';

/** A note with the items that share its key prefix, read together. */
export interface NoteWithItems {
  note: Note;
  /** Its jobs, by kind. */
  jobs: Map<JobKind, Job>;
  /** The collections it is filed in (including, briefly, one being deleted). */
  collectionIds: string[];
}

export interface NotePage {
  notes: Note[];
  nextCursor: string | null;
}

/**
 * Notes and their jobs. Every method takes the account ID: an implementation must make it impossible
 * to read or change another account's items.
 */
export interface NoteStore {
  /** Creates the note unless one with this ID exists; returns the stored note either way. */
  createNoteIfAbsent(note: Note): Promise<{ note: Note; created: boolean }>;
  getNote(accountId: string, noteId: string): Promise<Note | null>;
  /** The note, its jobs and its filings in one read (consistent); null when there is no note. */
  getNoteWithItems(accountId: string, noteId: string): Promise<NoteWithItems | null>;
  /** Several notes of one account, keyed by note ID (absent when there is none). */
  getNotes(accountId: string, noteIds: string[]): Promise<Map<string, Note>>;
  /** Several notes and their jobs of one kind, read together, keyed by note ID (absent when none). */
  getNotesWithJobs(
    accountId: string,
    noteIds: string[],
    kind: JobKind,
  ): Promise<{ notes: Map<string, Note>; jobs: Map<string, Job> }>;
  /** Newest first. `cursor` is opaque; an invalid one throws BadRequestError. */
  listNotes(
    accountId: string,
    state: NoteState,
    limit: number,
    cursor: string | undefined,
  ): Promise<NotePage>;
  /** Applies the changes to an existing note; null when there is none. */
  updateNote(accountId: string, noteId: string, changes: NoteChanges, now: number): Promise<Note | null>;
  /**
   * Applies the changes only if the stored note is still `expected` (same version), atomically; null
   * when it changed or was removed meanwhile. The basis of If-Match (no lost updates).
   */
  updateNoteIf(expected: Note, changes: NoteChanges, now: number): Promise<Note | null>;
  setAudio(accountId: string, noteId: string, audio: AudioInfo | null, now: number): Promise<Note | null>;
  /** Removes the note and every item belonging to it. */
  deleteNoteItems(accountId: string, noteId: string): Promise<void>;

  getJob(accountId: string, noteId: string, kind: JobKind): Promise<Job | null>;
  /** The jobs of this kind for several notes of one account, keyed by note ID (absent when none). */
  getJobs(accountId: string, noteIds: string[], kind: JobKind): Promise<Map<string, Job>>;
  /** Writes the job only if none exists; returns the stored job either way. */
  createJobIfAbsent(job: Job): Promise<{ job: Job; created: boolean }>;
  /**
   * Writes `next` only if the stored job still has `expected.updated_at` and `expected.status`
   * (optimistic concurrency). Returns false when someone else changed or removed it first.
   */
  replaceJob(expected: Job, next: Job): Promise<boolean>;
  /**
   * Updates the stage, and the progress (0..1) within it when known, of a job still processing in the
   * attempt `held` claimed; false when it is not (deleted, finished, or taken over by a later attempt).
   */
  updateJobStage(
    held: Job,
    stage: string,
    now: number,
    progress?: number,
    waiting?: JobWait,
  ): Promise<boolean>;
  /** Extends the lease of a job still processing in the attempt `held` claimed; false when it is not. */
  renewLease(held: Job, until: number): Promise<boolean>;
  /** Every job queued or processing, across accounts, without reading the rest of the store. */
  inFlightJobs(): AsyncIterable<Job>;
  /** Deletes the job if it still matches `expected` (same updated_at); false otherwise. */
  deleteJob(expected: Job): Promise<boolean>;

  /** Remembers, across accounts, that the retention will delete this note for good at `deletesAt`. */
  scheduleDeletion(deletion: ScheduledDeletion): Promise<void>;
  /** The deletions scheduled for `now` or earlier, soonest first. */
  deletionsDue(now: number): AsyncIterable<ScheduledDeletion>;
  /** Forgets a scheduled deletion (done, or its note restored or gone). */
  forgetDeletion(deletion: ScheduledDeletion): Promise<void>;
}

export interface ScheduledDeletion {
  accountId: string;
  noteId: string;
  deletesAt: number;
}

import type { UploadTarget } from '../ports/blob-store.ts';
import { deleteArtifacts } from './artifact-jobs.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import { deleteInsights } from './insights-jobs.ts';
import {
  isInFlight,
  type Job,
  type JobStatusView,
  jobStatusView,
  queuedJob,
  TRANSCRIPTION_STAGES,
} from './job.ts';
import type { Note } from './note.ts';
import { requireNote } from './notes.ts';
import { objectKeys } from './object-keys.ts';
import type { Transcription } from './transcript.ts';
import { withSpeakerNames } from './transcript-exports.ts';

export interface SubmitTranscriptionInput {
  title: string;
  content_type: string;
  size_bytes: number;
  speakers_expected?: number | undefined;
}

export type SubmitTranscriptionResult =
  | { kind: 'accepted'; job: JobStatusView & { upload?: UploadTarget } }
  | { kind: 'already_completed'; job: JobStatusView };

/** A job that failed with this detail will never succeed on the same bytes. */
export class FailedJobError extends ConflictError {
  constructor(readonly job: JobStatusView) {
    super(job.detail ?? 'The job failed');
  }
}

/**
 * Idempotent on the client-generated note ID (see docs/api-decisions.md): a repeat returns the same
 * note and job; concurrent repeats resolve through conditional writes.
 */
export async function submitTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  input: SubmitTranscriptionInput,
): Promise<SubmitTranscriptionResult> {
  const now = deps.now();
  const { note } = await deps.notes.createNoteIfAbsent({
    account_id: accountId,
    note_id: noteId,
    title: input.title,
    state: 'active',
    created_at: now,
    updated_at: now,
    trashed_at: null,
    audio: { content_type: input.content_type, size_bytes: input.size_bytes, uploaded_at: null },
    ...(input.speakers_expected ? { speakers_expected: input.speakers_expected } : {}),
  });
  if (note.state === 'trashed') {
    throw new ConflictError('This note is in the trash: restore it with updateNote before submitting audio');
  }
  // After deleteTranscription the audio is still stored: a new job starts from it without an upload.
  const hasAudio = hasUsableAudio(note);
  const initialStage = hasAudio ? TRANSCRIPTION_STAGES.queued : TRANSCRIPTION_STAGES.awaitingUpload;
  const { job } = await deps.notes.createJobIfAbsent(
    queuedJob(accountId, noteId, 'transcription', now, initialStage),
  );

  switch (job.status) {
    case 'completed':
      return { kind: 'already_completed', job: jobStatusView(job, note.title) };
    case 'failed':
      return restart(deps, note, job, input);
    case 'processing':
      return { kind: 'accepted', job: jobStatusView(job, note.title) };
    case 'queued':
      if (job.stage === TRANSCRIPTION_STAGES.awaitingUpload) return offerUpload(deps, note, job, input);
      // Sent on every repeat, not only on creation: a crash between writing the job and sending would
      // otherwise leave it queued forever. The worker's claim makes a duplicate request harmless.
      await requestTranscription(deps, note);
      return { kind: 'accepted', job: jobStatusView(job, note.title) };
  }
}

function hasUsableAudio(note: Note): boolean {
  return note.audio?.uploaded_at != null;
}

function requestTranscription(deps: DomainDeps, note: Note): Promise<void> {
  return deps.queue.requestTranscription({
    type: 'transcribe',
    account_id: note.account_id,
    note_id: note.note_id,
  });
}

/** A new attempt: from the stored audio when it is usable, otherwise from a new upload. */
async function restart(
  deps: DomainDeps,
  note: Note,
  previous: Job,
  input: SubmitTranscriptionInput,
): Promise<SubmitTranscriptionResult> {
  const now = deps.now();
  const hasAudio = hasUsableAudio(note);
  const next: Job = {
    ...queuedJob(
      note.account_id,
      note.note_id,
      'transcription',
      now,
      hasAudio ? TRANSCRIPTION_STAGES.queued : TRANSCRIPTION_STAGES.awaitingUpload,
      previous.attempts,
    ),
    created_at: previous.created_at,
  };
  if (!(await deps.notes.replaceJob(previous, next))) {
    // A concurrent submission restarted it first: answer with what it made.
    return submitTranscription(deps, note.account_id, note.note_id, input);
  }
  if (!hasAudio) return offerUpload(deps, note, next, input);
  await requestTranscription(deps, note);
  return { kind: 'accepted', job: jobStatusView(next, note.title) };
}

async function offerUpload(
  deps: DomainDeps,
  note: Note,
  job: Job,
  input: SubmitTranscriptionInput,
): Promise<SubmitTranscriptionResult> {
  let current = note;
  if (note.audio?.content_type !== input.content_type || note.audio.size_bytes !== input.size_bytes) {
    current =
      (await deps.notes.setAudio(
        note.account_id,
        note.note_id,
        { content_type: input.content_type, size_bytes: input.size_bytes, uploaded_at: null },
        deps.now(),
      )) ?? note;
  }
  const upload = await deps.blobs.presignUpload(
    objectKeys.audio(note.account_id, note.note_id),
    input.content_type,
    input.size_bytes,
  );
  return { kind: 'accepted', job: { ...jobStatusView(job, current.title), upload } };
}

export type GetTranscriptionResult =
  | { kind: 'ready'; transcription: Transcription; title: string }
  | { kind: 'pending'; job: JobStatusView };

export async function getTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<GetTranscriptionResult> {
  const note = await requireNote(deps, accountId, noteId);
  const job = await requireTranscriptionJob(deps, accountId, noteId);
  if (job.status === 'failed') throw new FailedJobError(jobStatusView(job, note.title));
  if (job.status !== 'completed') return { kind: 'pending', job: jobStatusView(job, note.title) };
  const transcription = await deps.blobs.getJson<Transcription>(objectKeys.transcription(accountId, noteId));
  if (!transcription) throw new Error(`Transcript object missing for a completed job`);
  return {
    kind: 'ready',
    transcription: withSpeakerNames(transcription, note.speaker_names),
    title: note.title,
  };
}

/** Removes generated results; the note and its audio stay, so the audio can be transcribed again. */
export async function deleteTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<void> {
  await requireNote(deps, accountId, noteId);
  const job = await requireTranscriptionJob(deps, accountId, noteId);
  if (isInFlight(job) && job.stage !== TRANSCRIPTION_STAGES.awaitingUpload) {
    throw new ConflictError('The transcription is in progress: delete it once it has completed or failed');
  }
  if (!(await deps.notes.deleteJob(job))) {
    throw new ConflictError('The transcription changed while it was being deleted: try again');
  }
  // Results derived from the transcript go with it: Ask's index entries, Insights, artifacts.
  await deps.search.remove(accountId, noteId);
  await deps.blobs.delete(objectKeys.transcription(accountId, noteId));
  await deleteInsights(deps, accountId, noteId);
  await deleteArtifacts(deps, accountId, noteId);
}

async function requireTranscriptionJob(deps: DomainDeps, accountId: string, noteId: string): Promise<Job> {
  const job = await deps.notes.getJob(accountId, noteId, 'transcription');
  if (!job) throw new NotFoundError('This note has no transcription: submit audio with submitTranscription');
  return job;
}

import type { UploadTarget } from '../ports/blob-store.ts';
import { recordStoredRecording } from './arrived-uploads.ts';
import { deleteArtifacts } from './artifact-jobs.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, FailedJobError, NotFoundError } from './errors.ts';
import { deleteInsights } from './insights-jobs.ts';
import {
  isHeld,
  type Job,
  type JobStatusView,
  jobStatusView,
  queuedJob,
  TRANSCRIPTION_STAGES,
} from './job.ts';
import { requestJobRun } from './job-requests.ts';
import { deleteJobOfKind } from './job-transitions.ts';
import { transcriptLost } from './lost-results.ts';
import type { Note } from './note.ts';
import { requireNoteWithItems } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';
import { readTranscriptionAt } from './stored-results.ts';
import { type TranscriptionView, transcriptionView } from './transcript-exports.ts';
import { withoutMatches } from './voice-matches.ts';

export interface SubmitTranscriptionInput {
  title: string;
  content_type: string;
  size_bytes: number;
  speakers_expected?: number | undefined;
}

export type SubmitTranscriptionResult =
  | { kind: 'accepted'; job: JobStatusView & { upload?: UploadTarget } }
  | { kind: 'already_completed'; job: JobStatusView };

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
  const found = await deps.notes.getNoteWithItems(accountId, noteId);
  let note = found?.note ?? null;
  let stored = found?.jobs.get('transcription') ?? null;
  if (!note) {
    // The job is written before the note, so a note is never seen without its job: a submission cut
    // short (a full disk, a crash) leaves at most a job nobody sees, which the next submission reuses.
    ({ job: stored } = await deps.notes.createJobIfAbsent(
      queuedJob(accountId, noteId, 'transcription', now, TRANSCRIPTION_STAGES.awaitingUpload),
    ));
    ({ note } = await deps.notes.createNoteIfAbsent({
      account_id: accountId,
      note_id: noteId,
      title: input.title,
      state: 'active',
      created_at: now,
      updated_at: now,
      trashed_at: null,
      audio: { content_type: input.content_type, size_bytes: input.size_bytes, uploaded_at: null },
      ...(input.speakers_expected ? { speakers_expected: input.speakers_expected } : {}),
    }));
  }
  if (note.state === 'trashed') {
    throw new ConflictError('This note is in the trash: restore it with updateNote before submitting audio');
  }
  // A recording stored whose upload was never recorded on the note (its upload event could not be
  // taken: a full disk, retries spent) is this note's recording: its upload URL stores only once, so
  // the job starts from it instead of offering an upload that could only be refused.
  if (found && !hasUsableAudio(note)) {
    const recorded = await recordStoredRecording(deps, accountId, noteId);
    if (typeof recorded === 'object') note = recorded;
  }
  // After deleteTranscription the audio is still stored: a new job starts from it without an upload.
  const hasAudio = hasUsableAudio(note);
  const initialStage = hasAudio ? TRANSCRIPTION_STAGES.queued : TRANSCRIPTION_STAGES.awaitingUpload;
  const job =
    stored ??
    (await deps.notes.createJobIfAbsent(queuedJob(accountId, noteId, 'transcription', now, initialStage)))
      .job;

  switch (job.status) {
    case 'completed':
      return { kind: 'already_completed', job: jobStatusView(job, note.title) };
    case 'failed':
      return restart(deps, note, job, input);
    case 'processing':
      // A worker holds it: the same job back. Its worker died (the lease ran out): a new attempt.
      if (isHeld(job, deps.now())) return { kind: 'accepted', job: jobStatusView(job, note.title) };
      return restart(deps, note, job, input);
    case 'queued':
      if (job.stage === TRANSCRIPTION_STAGES.awaitingUpload) {
        return hasAudio ? startFromStored(deps, note, job, input) : offerUpload(deps, note, job, input);
      }
      // Sent on every repeat, not only on creation: a crash between writing the job and sending would
      // otherwise leave it queued forever. The worker's claim makes a duplicate request harmless.
      await requestJobRun(deps, job);
      return { kind: 'accepted', job: jobStatusView(job, note.title) };
  }
}

function hasUsableAudio(note: Note): boolean {
  return note.audio?.uploaded_at != null;
}

/**
 * A new attempt after a failure, a deleteTranscription, or a worker that died: from the stored audio
 * when it is usable, otherwise from a new upload.
 */
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
  await requestJobRun(deps, next);
  return { kind: 'accepted', job: jobStatusView(next, note.title) };
}

/** A job awaiting an upload that is already stored: queued at once, as the upload event would. */
async function startFromStored(
  deps: DomainDeps,
  note: Note,
  job: Job,
  input: SubmitTranscriptionInput,
): Promise<SubmitTranscriptionResult> {
  const queued: Job = { ...job, stage: TRANSCRIPTION_STAGES.queued, updated_at: deps.now() };
  // Refused: the upload event or a concurrent submission moved it first: answer with what it made.
  if (!(await deps.notes.replaceJob(job, queued))) {
    return submitTranscription(deps, note.account_id, note.note_id, input);
  }
  await requestJobRun(deps, queued);
  return { kind: 'accepted', job: jobStatusView(queued, note.title) };
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
  | { kind: 'ready'; transcription: TranscriptionView; title: string }
  | { kind: 'pending'; job: JobStatusView };

export async function getTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<GetTranscriptionResult> {
  const { note, jobs } = await requireNoteWithItems(deps, accountId, noteId);
  const job = jobs.get('transcription');
  if (!job) throw new NotFoundError(NO_TRANSCRIPTION_JOB);
  if (job.status === 'failed') throw new FailedJobError(jobStatusView(job, note.title));
  if (job.status !== 'completed') return { kind: 'pending', job: jobStatusView(job, note.title) };
  const transcription = await readTranscriptionAt(deps, accountId, noteId, job.transcript);
  if (transcription === 'unreadable') {
    throw new FailedJobError(jobStatusView(await transcriptLost(deps, job), note.title));
  }
  return {
    kind: 'ready',
    transcription: transcriptionView(transcription, note.speaker_names),
    title: note.title,
  };
}

/**
 * Removes generated results; the note and its audio stay, so the audio can be transcribed again. A
 * transcription still queued or running is cancelled: its job goes first, so the worker loses its
 * claim, stops and keeps nothing it wrote.
 */
export async function deleteTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<void> {
  const { note, jobs } = await requireNoteWithItems(deps, accountId, noteId);
  const job = jobs.get('transcription');
  if (!job) throw new NotFoundError(NO_TRANSCRIPTION_JOB);
  // Known voices named the transcript's speakers: the suggestions go with it.
  const matched = Object.keys(note.voice_matches ?? {});
  if (matched.length > 0)
    await deps.notes.updateNote(accountId, noteId, withoutMatches(note, matched), deps.now());
  // Retried until it is gone: a running worker updates the job every few seconds.
  await deleteJobOfKind(deps, accountId, noteId, 'transcription', job);
  // Results derived from the transcript go with it: Ask's index entries, Insights, artifacts.
  await deps.search.remove(accountId, noteId);
  await deps.blobs.delete(objectKeys.transcription(accountId, noteId));
  await deps.blobs.delete(objectKeys.voices(accountId, noteId));
  await deps.blobs.deletePrefix(objectKeys.transcriptRevisions(accountId, noteId));
  // The jobs read above are deleted as read (one changed since is read again); a kind that had none
  // is looked up again, in case a request made it meanwhile.
  await deleteInsights(deps, accountId, noteId, jobs);
  await deleteArtifacts(deps, accountId, noteId, jobs);
}

const NO_TRANSCRIPTION_JOB = 'This note has no transcription: submit audio with submitTranscription';

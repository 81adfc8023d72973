import type { DomainDeps } from './deps.ts';
import { type Job, TRANSCRIPTION_STAGES } from './job.ts';
import { requestJobRun } from './job-requests.ts';
import type { Note } from './note.ts';
import { objectKeys } from './object-keys.ts';

/**
 * What became of an upload:
 * - `queued`: the job moved from `awaiting_upload` to `queued` and its run was requested;
 * - `requested_again`: the job was already `queued` (a redelivered event, or one whose first handling
 *   stopped before the request was sent): the request is sent again, which the worker's claim makes
 *   harmless, so a lost request never leaves the job waiting;
 * - `unchanged`: the job is running, finished or gone: nothing to do;
 * - `not_stored`: no recording is stored under the key (a late event of an object deleted since);
 * - `orphan_removed`: the recording was uploaded to the URL of a note deleted since and was removed.
 */
export type ArrivedUpload = 'queued' | 'requested_again' | 'unchanged' | 'not_stored' | 'orphan_removed';

/**
 * Takes a recording that reached storage: the note records the upload (the first one only) and the
 * transcription job moves from `awaiting_upload` to `queued` with a conditional write, then its run
 * is requested on the transcription queue. The upload event's worker and start-up recovery (an
 * upload whose event was lost with the local queue) both come here. Safe to repeat: storage is the
 * truth (its size, and whether the object is there at all), and only one caller wins the move.
 */
export async function recordArrivedUpload(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<ArrivedUpload> {
  const stored = await recordStoredRecording(deps, accountId, noteId);
  if (stored === 'not_stored') return 'not_stored';
  if (stored === 'no_note') {
    // Uploaded to the URL of a note deleted since: the bytes belong to nobody.
    await deps.blobs.delete(objectKeys.audio(accountId, noteId));
    return 'orphan_removed';
  }
  const job = await deps.notes.getJob(accountId, noteId, 'transcription');
  if (job?.status !== 'queued') return 'unchanged';
  if (job.stage !== TRANSCRIPTION_STAGES.awaitingUpload) {
    await requestJobRun(deps, job);
    return 'requested_again';
  }
  const queued: Job = { ...job, stage: TRANSCRIPTION_STAGES.queued, updated_at: deps.now() };
  // Refused: another delivery, a resubmission or a deletion changed the job first; whoever changed
  // it sends its request (or the redelivery of this event finds it queued and sends it again).
  if (!(await deps.notes.replaceJob(job, queued))) return 'unchanged';
  await requestJobRun(deps, queued);
  return 'queued';
}

/**
 * Ends a job whose upload event could not be taken after repeated attempts (the uploads queue's
 * dead-letter queue), only while it still waits for its upload: once `queued`, its run was requested
 * and the transcription queue (and its own dead-letter queue) see it through. The recording is
 * recorded on the note first when it can be, so that submitting the note again starts from it (its
 * upload URL stores once: a second upload would be refused).
 */
export async function failUntakenUpload(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  detail: string,
): Promise<'failed' | 'skipped'> {
  const job = await deps.notes.getJob(accountId, noteId, 'transcription');
  if (job?.status !== 'queued' || job.stage !== TRANSCRIPTION_STAGES.awaitingUpload) return 'skipped';
  await recordStoredRecording(deps, accountId, noteId);
  const failed: Job = {
    ...job,
    status: 'failed',
    stage: TRANSCRIPTION_STAGES.failed,
    detail,
    updated_at: deps.now(),
  };
  return (await deps.notes.replaceJob(job, failed)) ? 'failed' : 'skipped';
}

/**
 * The note records the stored recording's size and arrival; only the first upload counts. Also how a
 * submission finds a recording stored whose upload was never recorded (src/domain/transcription.ts).
 */
export async function recordStoredRecording(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<Note | 'not_stored' | 'no_note'> {
  const size = await deps.blobs.objectSize(objectKeys.audio(accountId, noteId));
  if (size === null) return 'not_stored';
  const note = await deps.notes.getNote(accountId, noteId);
  if (!note) return 'no_note';
  if (!note.audio || note.audio.uploaded_at !== null) return note;
  const now = deps.now();
  return (
    (await deps.notes.setAudio(
      accountId,
      noteId,
      { ...note.audio, size_bytes: size, uploaded_at: now },
      now,
    )) ?? note
  );
}

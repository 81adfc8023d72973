import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpeechToText } from '../ports/speech-to-text.ts';
import type { DomainDeps } from './deps.ts';
import { UnreadableAudioError } from './errors.ts';
import { type Job, TRANSCRIPTION_STAGES } from './job.ts';
import { objectKeys } from './object-keys.ts';
import { buildTranscription } from './transcript.ts';

export interface WorkerDeps extends DomainDeps {
  speech: SpeechToText;
  engineName: string;
  language: string;
}

/** What started the work: the upload of a recording (S3 event) or a request to re-transcribe stored audio. */
export interface TranscriptionTrigger {
  accountId: string;
  noteId: string;
  upload?: { sizeBytes: number };
}

export type TranscriptionOutcome = 'completed' | 'failed' | 'skipped';

/**
 * Runs one transcription job. Safe to run again for the same trigger (queues deliver at least once):
 * a finished job is skipped, a job left `processing` by a worker that died is claimed again, and the
 * result is written under a fixed key, so a duplicate run cannot produce a second transcript.
 * Throws for transient faults, which the queue retries; unreadable audio fails the job for good.
 */
export async function runTranscription(
  deps: WorkerDeps,
  trigger: TranscriptionTrigger,
): Promise<TranscriptionOutcome> {
  const { accountId, noteId } = trigger;
  const audioKey = objectKeys.audio(accountId, noteId);
  let note = await deps.notes.getNote(accountId, noteId);
  if (!note) {
    // Uploaded to the URL of a note deleted since: the bytes belong to nobody.
    if (trigger.upload) await deps.blobs.delete(audioKey);
    return 'skipped';
  }
  if (trigger.upload && note.audio) {
    note =
      (await deps.notes.setAudio(
        accountId,
        noteId,
        { ...note.audio, size_bytes: trigger.upload.sizeBytes, uploaded_at: deps.now() },
        deps.now(),
      )) ?? note;
  }

  const job = await deps.notes.getJob(accountId, noteId, 'transcription');
  if (!job || job.status === 'completed' || job.status === 'failed') return 'skipped';
  const claimed: Job = {
    ...job,
    status: 'processing',
    stage: TRANSCRIPTION_STAGES.decoding,
    attempts: job.attempts + 1,
    updated_at: deps.now(),
  };
  // Losing the claim means another delivery or a resubmission got there first; it does the work.
  if (!(await deps.notes.replaceJob(job, claimed))) return 'skipped';

  const workDir = await mkdtemp(join(tmpdir(), 'notes-transcription-'));
  try {
    const audioPath = join(workDir, 'audio');
    if (!(await deps.blobs.downloadToFile(audioKey, audioPath))) {
      return fail(deps, accountId, noteId, 'The recording was not found in storage: submit it again');
    }
    let lastStage: string = claimed.stage;
    const result = await deps.speech.transcribe(audioPath, async ({ stage }) => {
      if (stage === lastStage) return;
      lastStage = stage;
      await deps.notes.updateJobStage(accountId, noteId, 'transcription', stage, deps.now());
    });
    await deps.notes.updateJobStage(
      accountId,
      noteId,
      'transcription',
      TRANSCRIPTION_STAGES.saving,
      deps.now(),
    );
    const transcription = buildTranscription(result.words, {
      duration_ms: result.duration_ms,
      engine: deps.engineName,
      language: deps.language,
    });
    await deps.blobs.putJson(objectKeys.transcription(accountId, noteId), transcription);
    return complete(deps, accountId, noteId);
  } catch (error) {
    if (!(error instanceof UnreadableAudioError)) throw error;
    // Keeping bytes that are not audio helps nobody; a new attempt asks for a new upload.
    await deps.blobs.delete(audioKey);
    if (note.audio)
      await deps.notes.setAudio(accountId, noteId, { ...note.audio, uploaded_at: null }, deps.now());
    return fail(deps, accountId, noteId, error.message);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function complete(deps: WorkerDeps, accountId: string, noteId: string): Promise<TranscriptionOutcome> {
  for (;;) {
    const job = await deps.notes.getJob(accountId, noteId, 'transcription');
    if (!job) {
      // The note or its transcription was deleted while we worked: do not leave the result behind.
      await deps.blobs.delete(objectKeys.transcription(accountId, noteId));
      return 'skipped';
    }
    if (job.status !== 'processing') return 'skipped';
    const done: Job = {
      ...job,
      status: 'completed',
      stage: TRANSCRIPTION_STAGES.completed,
      updated_at: deps.now(),
    };
    if (await deps.notes.replaceJob(job, done)) return 'completed';
  }
}

/** Ends an in-flight job as failed with a detail the user can act on. */
export async function fail(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  detail: string,
): Promise<TranscriptionOutcome> {
  for (;;) {
    const job = await deps.notes.getJob(accountId, noteId, 'transcription');
    if (!job || job.status === 'completed' || job.status === 'failed') return 'skipped';
    const failed: Job = {
      ...job,
      status: 'failed',
      stage: TRANSCRIPTION_STAGES.failed,
      detail,
      updated_at: deps.now(),
    };
    if (await deps.notes.replaceJob(job, failed)) return 'failed';
  }
}

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  type BatchRecognitionJob,
  type BatchSpeechToText,
  isBatchEngine,
  type RecognitionHints,
  type RecognitionResult,
  type RecognitionWait,
  type SpeechToText,
} from '../ports/speech-to-text.ts';
import type { DomainDeps } from './deps.ts';
import { UnreadableAudioError } from './errors.ts';
import { isRun, type Job, type JobWait, runNumber, TRANSCRIPTION_STAGES } from './job.ts';
import { holdJob } from './job-hold.ts';
import { requestJobRun } from './job-requests.ts';
import { claimJob, completeJob, failJob, releaseJob } from './job-transitions.ts';
import type { Note } from './note.ts';
import { syncNoteIndex } from './note-index.ts';
import { objectKeys } from './object-keys.ts';
import { withScratchDir } from './scratch.ts';
import { buildTranscription } from './transcript.ts';
import { nameKnownVoices } from './voice-profiles.ts';

/** How often the job's progress is written while a long recording is recognised. */
const PROGRESS_WRITE_INTERVAL_MS = 3000;
/** Amazon Transcribe ends a job within hours; until then no worker should take the job over. */
const BATCH_RECOGNITION_LEASE_MS = 6 * 60 * 60 * 1000;

export interface WorkerDeps extends DomainDeps {
  speech: SpeechToText | BatchSpeechToText;
  engineName: string;
  language: string;
}

/** A request to transcribe a note's stored recording (src/domain/arrived-uploads.ts sends it once uploaded). */
export interface TranscriptionTrigger {
  accountId: string;
  noteId: string;
}

/**
 * `started`: a batch recognition job was started; its completion event finishes the work.
 * `rejected`: failed because of the recording itself (not audio): the person's to fix, no operator's;
 * `failed` is every other end in failure, which an operator is told about (the metrics' alarms).
 * `retried`: the provider failed the run on its side; the job is queued for a new one.
 */
export type TranscriptionOutcome = 'completed' | 'failed' | 'rejected' | 'retried' | 'skipped' | 'started';

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
  const note = await deps.notes.getNote(accountId, noteId);
  // Deleted since it was queued: its recording went with it.
  if (!note) return 'skipped';

  const batch = isBatchEngine(deps.speech);
  const stage = batch ? TRANSCRIPTION_STAGES.recognizing : TRANSCRIPTION_STAGES.decoding;
  const claimed = await claimJob(deps, accountId, noteId, 'transcription', stage);
  if (!claimed) {
    // A redelivery after a worker died between completing the job and indexing it finishes the latter.
    await syncNoteIndex(deps, accountId, noteId);
    return 'skipped';
  }

  if (isBatchEngine(deps.speech)) {
    try {
      await deps.speech.start({ accountId, noteId, attempt: runNumber(claimed), hints: hintsOf(note) });
    } catch (error) {
      // Not started: the queue's next delivery must be able to claim the job at once.
      await releaseJob(deps, claimed, TRANSCRIPTION_STAGES.queued);
      throw error;
    }
    // The provider works on it from now on: its lease lasts as long as a batch job may run. Refused:
    // the job was deleted meanwhile; the provider's event will find nothing to finish.
    if (!(await deps.notes.renewLease(claimed, deps.now() + BATCH_RECOGNITION_LEASE_MS))) return 'skipped';
    return 'started';
  }
  const engine = deps.speech;
  const current = note;
  return holdJob(
    deps,
    claimed,
    { outputs: [objectKeys.transcription(accountId, noteId)], requeueStage: TRANSCRIPTION_STAGES.queued },
    (signal) => recognizeHere(deps, engine, current, claimed, signal),
  );
}

function jobWait(waiting: RecognitionWait): JobWait {
  const { recordingsAhead, startsAt } = waiting;
  return {
    recordings_ahead: recordingsAhead,
    ...(startsAt === undefined ? {} : { estimated_start_at: startsAt }),
  };
}

function hintsOf(note: Note): RecognitionHints {
  return note.speakers_expected ? { speakersExpected: note.speakers_expected } : {};
}

/** Inline recognition: download the recording, recognise it in this process, save the transcript. */
async function recognizeHere(
  deps: WorkerDeps,
  engine: SpeechToText,
  note: Note,
  job: Job,
  signal: AbortSignal,
): Promise<TranscriptionOutcome> {
  const { account_id: accountId, note_id: noteId } = note;
  const audioKey = objectKeys.audio(accountId, noteId);
  const outcome = await withScratchDir(deps.scratchRoot, 'notes-transcription-', async (workDir) => {
    try {
      const audioPath = join(workDir, 'audio');
      if (!(await deps.blobs.downloadToFile(audioKey, audioPath))) {
        return fail(deps, job, 'The recording was not found in storage: submit it again');
      }
      let last: { stage: string; at: number; ahead?: number; estimated?: boolean } = {
        stage: job.stage,
        at: 0,
      };
      const result = await engine.transcribe(
        audioPath,
        async ({ stage, fraction, waiting }) => {
          // A write per stage change or change of the recordings ahead, and figures within a stage
          // (progress, the estimated start) at most every few seconds.
          const now = deps.now();
          const estimated = waiting?.startsAt !== undefined;
          const news =
            stage !== last.stage || waiting?.recordingsAhead !== last.ahead || (estimated && !last.estimated); // a first estimate is news, not a figure to rate-limit
          const figures = fraction !== undefined || estimated;
          if (!news && (!figures || now - last.at < PROGRESS_WRITE_INTERVAL_MS)) return;
          last = { stage, at: now, estimated, ...(waiting ? { ahead: waiting.recordingsAhead } : {}) };
          await deps.notes.updateJobStage(job, stage, now, fraction, waiting && jobWait(waiting));
        },
        hintsOf(note),
        signal,
      );
      signal.throwIfAborted();
      return await saveTranscript(deps, note, job, result);
    } catch (error) {
      if (!(error instanceof UnreadableAudioError)) throw error;
      return failUnreadable(deps, note, job, error.message);
    }
  });
  // Then the note joins the search index: after the scratch files are gone, since indexing a long
  // transcript takes a while and the job is already complete.
  if (outcome === 'completed') await syncNoteIndex(deps, accountId, noteId);
  return outcome;
}

/** The event of a batch recognition job (Amazon Transcribe) that ended. */
export interface BatchJobEnded {
  job: BatchRecognitionJob;
  succeeded: boolean;
  /** Why it failed, in the provider's words. */
  failureReason?: string;
  /** The provider says retrying the same recording cannot help (e.g. not a supported media format). */
  permanent?: boolean;
  /** The provider failed the job on its side (an internal failure): a new run may succeed. */
  transient?: boolean;
}

/**
 * Runs of a transcription (per request) that a batch provider may fail on its side before the job ends
 * failed: each is a new recognition job (a new cost), so few.
 */
export const MAX_TRANSIENT_RUNS = 3;

/**
 * Finishes a note's job when its batch recognition ends. Events can arrive twice or late: an event of
 * an attempt other than the current one, or for a job no longer processing, only cleans up.
 */
export async function finishBatchTranscription(
  deps: WorkerDeps & { speech: BatchSpeechToText },
  ended: BatchJobEnded,
): Promise<TranscriptionOutcome> {
  const { accountId, noteId, attempt } = ended.job;
  // The provider's output is removed once the event is settled, not when saving fails for a
  // transient reason: the event's redelivery needs it.
  const outcome = await settleBatchJob(deps, ended, accountId, noteId, attempt);
  await deps.speech.cleanUp(ended.job);
  return outcome;
}

async function settleBatchJob(
  deps: WorkerDeps & { speech: BatchSpeechToText },
  ended: BatchJobEnded,
  accountId: string,
  noteId: string,
  attempt: number,
): Promise<TranscriptionOutcome> {
  const [note, job] = await Promise.all([
    deps.notes.getNote(accountId, noteId),
    deps.notes.getJob(accountId, noteId, 'transcription'),
  ]);
  if (!note || !job || !isRun(job, attempt)) return 'skipped';
  // This run's failure was settled already by queuing a new run, but the queue may not have heard:
  // the event came again (a retry after the send failed), so the run is asked for again (a duplicate
  // is dropped by the claim).
  if (job.status === 'queued' && !ended.succeeded && ended.transient && (job.transient_reruns ?? 0) > 0) {
    await requestJobRun(deps, job);
    return 'retried';
  }
  if (job.status !== 'processing') return 'skipped';
  if (!ended.succeeded) {
    const reason = `Speech recognition failed: ${ended.failureReason ?? 'no reason given'}.`;
    if (ended.permanent) return failUnreadable(deps, note, job, reason);
    if (ended.transient && (job.transient_reruns ?? 0) < MAX_TRANSIENT_RUNS - 1)
      return recognizeAgain(deps, job);
    return fail(deps, job, `${reason} Submit the note again to retry.`);
  }
  // The event names the run only; the note's hints go with it (a one-speaker hint shapes the result).
  const result = await deps.speech.result({ ...ended.job, hints: hintsOf(note) });
  const outcome = await saveTranscript(deps, note, job, result);
  // Then the note joins the search index.
  await syncNoteIndex(deps, accountId, noteId);
  return outcome;
}

async function saveTranscript(
  deps: WorkerDeps,
  note: Note,
  job: Job,
  result: RecognitionResult,
): Promise<TranscriptionOutcome> {
  // Refused: this attempt no longer holds the job (deleted, restarted or taken over): write nothing.
  if (!(await deps.notes.updateJobStage(job, TRANSCRIPTION_STAGES.saving, deps.now()))) return 'skipped';
  const transcription = buildTranscription(result.words, {
    duration_ms: result.duration_ms,
    engine: result.engine ?? deps.engineName,
    language: result.language ?? deps.language,
    notice: result.notice,
    fallback: result.fallback,
    speakers_by: result.speakers_by,
  });
  const key = objectKeys.transcription(job.account_id, job.note_id);
  // A new revision 0 replaces the old one: corrections made to the old one (left by a transcript
  // that was lost) no longer apply to anything. Removed under the same claim check as the write.
  await deps.blobs.deletePrefix(objectKeys.transcriptRevisions(job.account_id, job.note_id));
  // The voices of this recognition, or none: an earlier run's would describe other turns.
  const voicesKey = objectKeys.voices(job.account_id, job.note_id);
  const withVoices = (result.voices?.length ?? 0) > 0;
  if (withVoices) await deps.blobs.putJson(voicesKey, { voices: result.voices });
  else await deps.blobs.delete(voicesKey);
  await deps.blobs.putJson(key, transcription);
  const heard = transcription.notice?.code === 'no_speech' ? { no_speech: true as const } : {};
  // A job deleted meanwhile takes what was written with it: the voices too.
  const written = withVoices ? [key, voicesKey] : [key];
  const outcome = await completeJob(deps, job, written, { recognition: randomUUID(), ...heard });
  // After the job completed: naming known voices is a suggestion, never a reason to recognise again.
  if (outcome === 'completed') {
    await nameKnownVoices(deps, note, transcription, result.voices ?? []).catch((error: unknown) =>
      deps.warn?.('known voices not named', {
        note_id: job.note_id,
        error: error instanceof Error ? error.name : 'unknown',
      }),
    );
  }
  return outcome;
}

/** Queues the job for a new run (a new recognition job), as a lost worker's job is queued again. */
async function recognizeAgain(deps: WorkerDeps, job: Job): Promise<TranscriptionOutcome> {
  const queued = await releaseJob(deps, job, TRANSCRIPTION_STAGES.queued, {
    transient_reruns: (job.transient_reruns ?? 0) + 1,
  });
  if (!queued) return 'skipped';
  await requestJobRun(deps, queued);
  return 'retried';
}

/** Keeping bytes that are not audio helps nobody; a new attempt asks for a new upload. */
async function failUnreadable(
  deps: WorkerDeps,
  note: Note,
  job: Job,
  detail: string,
): Promise<TranscriptionOutcome> {
  // Only the attempt that still holds the job may discard the recording.
  const outcome = await fail(deps, job, detail);
  if (outcome !== 'failed') return outcome;
  await deps.blobs.delete(objectKeys.audio(note.account_id, note.note_id));
  if (note.audio) {
    await deps.notes.setAudio(
      note.account_id,
      note.note_id,
      { ...note.audio, uploaded_at: null },
      deps.now(),
    );
  }
  return 'rejected';
}

/** Ends this attempt's transcription as failed with a detail the user can act on. */
function fail(deps: DomainDeps, job: Job, detail: string): Promise<TranscriptionOutcome> {
  return failJob(deps, job.account_id, job.note_id, 'transcription', detail, job);
}

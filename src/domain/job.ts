/**
 * Job state per note and kind: `queued -> processing (stage) -> completed | failed`.
 * Timestamps are epoch milliseconds.
 */
export const JOB_KINDS = [
  'transcription',
  'insights',
  'artifact:epiphany',
  'artifact:deep_research',
  'artifact:podcast',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export type JobStatusValue = 'queued' | 'processing' | 'completed' | 'failed';

/** Transcription stages, in order. `stage` narrows `status` for progress display. */
export const GENERATION_STAGES = {
  queued: 'queued',
  generating: 'generating',
  saving: 'saving',
  completed: 'completed',
  failed: 'failed',
} as const;

export const TRANSCRIPTION_STAGES = {
  awaitingUpload: 'awaiting_upload',
  queued: 'queued',
  decoding: 'decoding',
  /** Decoded, waiting for a recogniser that other recordings hold (`waiting` says what for). */
  waiting: 'waiting',
  recognizing: 'recognizing',
  /** The local engine's model is still being fetched (self-hosted, just after the start). */
  fetchingModel: 'fetching_model',
  saving: 'saving',
  completed: 'completed',
  failed: 'failed',
} as const;

export interface Job {
  account_id: string;
  note_id: string;
  kind: JobKind;
  status: JobStatusValue;
  stage: string;
  attempts: number;
  created_at: number;
  updated_at: number;
  detail: string | null;
  /** 0..1 within the current stage, when the engine reports it. */
  progress?: number;
  /** Stage `waiting`: what the recording waits for (the local engines share their recognisers). */
  waiting?: JobWait;
  /**
   * While `processing`: until when the worker that claimed it holds it (epoch ms). The worker renews
   * it while it works; once it has passed, no worker holds the job and it may be claimed or restarted.
   */
  lease_expires_at?: number;
  /** How many times start-up recovery found this run's worker gone (a new request starts from 0). */
  interruptions?: number;
  /**
   * Batch transcriptions: how many times the reconciler found this run's recognition ended and tried
   * to finish the note from it (a new run starts from 0). Bounded: see job-reconciliation.ts.
   */
  finish_tries?: number;
  /**
   * When a worker first claimed this request's work (epoch ms): kept across its runs, absent on a new
   * request. What the reconciler's give-up after 12 hours counts from (job-reconciliation.ts).
   */
  first_claimed_at?: number;
  /** Batch transcriptions: runs started again because the provider failed one on its side (per request). */
  transient_reruns?: number;
  /** Artifact jobs: the resolved language the artifact is written in (what a re-sent request needs). */
  language?: string;
  /**
   * Transcription jobs whose transcript was corrected: which revision is current. Absent means the
   * recogniser's output (revision 0). Lives on the job so that a new transcription starts clean.
   */
  transcript?: TranscriptPointer;
  /**
   * Completed transcription jobs: a random ID given to the recogniser run that made revision 0, new
   * for every run. Results record it, so that a transcript recognised again (after it was lost)
   * makes them outdated even though its revision numbers start from 0 again.
   */
  recognition?: string;
  /**
   * Completed transcription jobs whose recording held no speech (music, tones, silence): there is
   * nothing to generate from, so Insights and artifacts answer 409 instead of queuing a run.
   */
  no_speech?: true;
}

/** A recording ready to be recognised that waits for a recogniser other recordings hold. */
export interface JobWait {
  /** Other recordings being recognised now or served before this one. */
  recordings_ahead: number;
  /** Epoch ms: when its recognition should start, by the speed of the chunks recognised lately. */
  estimated_start_at?: number;
}

/** The current revision of a corrected transcript (src/domain/transcript-revisions.ts). */
export interface TranscriptPointer {
  /** The current revision: 0 is the recogniser's output. */
  revision: number;
  /** Its stored object; null for revision 0 (the recogniser's own object). */
  key: string | null;
  /** When it was made (epoch ms); null for revision 0. */
  edited_at: number | null;
  /** The highest number ever given, so a new edit never reuses one that an undo left behind. */
  highest: number;
}

/** The job status object of the API (spec: "Job status object"). */
export interface JobStatusView {
  note_id: string;
  kind: JobKind;
  status: JobStatusValue;
  stage: string;
  title: string;
  created_at: number;
  updated_at: number;
  attempts: number;
  progress?: number;
  waiting?: JobWait;
  detail?: string;
}

export function jobStatusView(job: Job, title: string): JobStatusView {
  const view: JobStatusView = {
    note_id: job.note_id,
    kind: job.kind,
    status: job.status,
    stage: job.stage,
    title,
    created_at: job.created_at,
    updated_at: job.updated_at,
    attempts: job.attempts,
  };
  if (job.progress !== undefined && job.status === 'processing') view.progress = job.progress;
  if (job.waiting && job.status === 'processing' && job.stage === TRANSCRIPTION_STAGES.waiting)
    view.waiting = job.waiting;
  if (job.detail !== null) view.detail = job.detail;
  return view;
}

/** A job just requested: queued at `stage`, keeping the attempts of the run it replaces. */
export function queuedJob(
  accountId: string,
  noteId: string,
  kind: JobKind,
  now: number,
  stage: string = GENERATION_STAGES.queued,
  attempts = 0,
): Job {
  return {
    account_id: accountId,
    note_id: noteId,
    kind,
    status: 'queued',
    stage,
    attempts,
    created_at: now,
    updated_at: now,
    detail: null,
  };
}

export function isInFlight(job: Job): boolean {
  return job.status === 'queued' || job.status === 'processing';
}

/**
 * The same run of the same job: the attempt number, and the creation time, which tells a job made
 * again after a deletion (its attempts start over) from the one deleted.
 */
export function isSameAttempt(job: Job, held: Job): boolean {
  return job.attempts === held.attempts && job.created_at === held.created_at;
}

/** A worker is working on it now: processing, with a lease that has not run out. */
export function isHeld(job: Job, now: number): boolean {
  return job.status === 'processing' && (job.lease_expires_at ?? 0) > now;
}

/**
 * The number that names one run of a job outside the service (an Amazon Transcribe job name, its
 * output key): the job's creation time and its attempt. Unlike the attempt alone it is never reused
 * when a job is deleted and made again, so a late event of a deleted job's run matches nothing.
 * Below 2^53 until the year 2255 with up to 999 attempts.
 */
export function runNumber(job: Pick<Job, 'created_at' | 'attempts'>): number {
  return job.created_at * RUNS_PER_MS + job.attempts;
}

/** Whether `run` names this run of the job (run numbers from before they existed were the bare attempt). */
export function isRun(job: Pick<Job, 'created_at' | 'attempts'>, run: number): boolean {
  return run < LEGACY_RUN_LIMIT ? run === job.attempts : run === runNumber(job);
}

const RUNS_PER_MS = 1000;
const LEGACY_RUN_LIMIT = 1_000_000_000_000;

import {
  GetTranscriptionJobCommand,
  type GetTranscriptionJobCommandOutput,
  type LanguageCode,
  StartTranscriptionJobCommand,
  type StartTranscriptionJobCommandInput,
  type StartTranscriptionJobCommandOutput,
} from '@aws-sdk/client-transcribe';
import * as z from 'zod';
import type { BatchJobStatus } from '../../ports/speech-to-text.ts';

/** The client calls used. A `TranscribeClient` satisfies it; tests pass a fake `send`. */
export interface TranscribeSender {
  send(
    command: StartTranscriptionJobCommand | GetTranscriptionJobCommand,
  ): Promise<StartTranscriptionJobCommandOutput | GetTranscriptionJobCommandOutput>;
}

export interface StartJobRequest {
  jobName: string;
  /** `s3://bucket/key` of the uploaded recording. */
  mediaUri: string;
  outputBucket: string;
  outputKey: string;
  /** A Transcribe language code such as `en-US`, or `auto` to let Transcribe identify the language. */
  languageCode: string;
  /** Transcribe's minimum is 2; it rejects values above its maximum with a BadRequestException. */
  maxSpeakers?: number;
  /**
   * A role Transcribe assumes to read the media and write the output later: with it, a job past the
   * account's concurrent-job quota waits in Transcribe's queue (job queueing) instead of being refused
   * with a LimitExceededException. Without it, no queueing.
   */
  dataAccessRoleArn?: string;
}

/** `already_started`: a job with this name exists, so an earlier delivery of the same work started it. */
export type StartOutcome = 'started' | 'already_started';

export interface JobStateChange {
  jobName: string;
  status: 'COMPLETED' | 'FAILED';
  failureReason?: string;
}

export interface JobNameParts {
  accountId: string;
  noteId: string;
  attempt: number;
}

/** Limits from the StartTranscriptionJob API reference (TranscriptionJobName). */
const JOB_NAME_MAX_LENGTH = 200;
const JOB_NAME_CHARS = /^[0-9a-zA-Z._-]*$/;
/** IDs may not contain the separator, so a name splits back into exactly its parts. */
const ID_CHARS = /^[0-9a-zA-Z_-]+$/;
const SEPARATOR = '.';
/** Canonical form only (no leading zeros), so each attempt has exactly one name. */
const ATTEMPT = /^(0|[1-9]\d*)$/;

/**
 * FailureReason texts that mean the media itself is unusable, so a new job on the same file fails
 * the same way. The first six are listed under TranscriptionJob.FailureReason in the API reference;
 * the others are texts Transcribe returns that the reference does not list (minimum length, the
 * 4-hour limit appended to "Invalid file size", and no speech for language identification).
 */
const PERMANENT_FAILURES = [
  /unsupported media format/i,
  /media format provided does not match the detected media format/i,
  /invalid sample rate for audio file/i,
  /sample rate provided does not match the detected sample rate/i,
  /invalid file size/i,
  /invalid number of channels/i,
  /media file length is too small/i,
  /maximum audio duration/i,
  /speech segment long enough/i,
];

/**
 * Failure reasons of Transcribe's own making (its documentation lists "Internal failure" among
 * FAILED jobs' reasons): the same media in a new job may well succeed, so the job runs again.
 */
const TRANSIENT_FAILURES = [
  /internal failure/i,
  /internal (server )?error/i,
  /service (is )?(temporarily )?unavailable/i,
  /throttl/i,
  /rate exceeded/i,
];

/** The EventBridge event Transcribe emits when a job reaches COMPLETED or FAILED (fields we read). */
const jobStateChangeEvent = z.object({
  source: z.literal('aws.transcribe'),
  'detail-type': z.literal('Transcribe Job State Change'),
  detail: z.object({
    TranscriptionJobName: z.string().min(1),
    TranscriptionJobStatus: z.enum(['COMPLETED', 'FAILED']),
    FailureReason: z.string().optional(),
  }),
});

/** Starts Amazon Transcribe batch jobs and reads what Transcribe reports back about them. */
export class TranscribeJobs {
  constructor(private readonly client: TranscribeSender) {}

  /**
   * Starts a diarised transcription job. Safe to repeat (queue redelivery): a ConflictException means
   * the name is taken, and names encode account, note and attempt, so the job is already ours.
   * Throttling and limit errors (LimitExceededException: too many requests, too many concurrent jobs
   * without queueing, or a full job queue with it) and everything else propagate so that the queue
   * retries or fails the message. A queued job (status QUEUED) counts as started: its state change
   * event comes like any other's once it runs.
   */
  async start(request: StartJobRequest): Promise<StartOutcome> {
    const {
      jobName,
      mediaUri,
      outputBucket,
      outputKey,
      languageCode,
      maxSpeakers = 10,
      dataAccessRoleArn,
    } = request;
    assertJobName(jobName);
    if (!mediaUri.startsWith('s3://')) throw new Error(`Media URI must be s3://bucket/key, got ${mediaUri}`);
    if (!Number.isInteger(maxSpeakers) || maxSpeakers < 1) {
      throw new RangeError(`maxSpeakers must be an integer of at least 1, got ${maxSpeakers}`);
    }
    const input: StartTranscriptionJobCommandInput = {
      TranscriptionJobName: jobName,
      Media: { MediaFileUri: mediaUri },
      OutputBucketName: outputBucket,
      OutputKey: outputKey,
      // Transcribe's MaxSpeakerLabels starts at 2: one speaker is asked for by asking for no labels.
      Settings:
        maxSpeakers === 1
          ? { ShowSpeakerLabels: false }
          : { ShowSpeakerLabels: true, MaxSpeakerLabels: maxSpeakers },
      // Transcribe rejects an unknown code with a BadRequestException; no need to keep a copy of its list.
      ...(languageCode === 'auto'
        ? { IdentifyLanguage: true }
        : { LanguageCode: languageCode as LanguageCode }),
      // Transcribe requires both fields together; a queued job reads the media with this role.
      ...(dataAccessRoleArn === undefined
        ? {}
        : { JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: dataAccessRoleArn } }),
    };
    try {
      await this.client.send(new StartTranscriptionJobCommand(input));
      return 'started';
    } catch (error) {
      // By name rather than instanceof: a second copy of the SDK in the bundle has its own classes.
      if (error instanceof Error && error.name === 'ConflictException') return 'already_started';
      throw error;
    }
  }

  /**
   * Where a job is (GetTranscriptionJob), for a completion event that may have been missed: ended
   * (COMPLETED or FAILED, as the event would have said), still running (QUEUED, IN_PROGRESS), or
   * unknown to Transcribe (never started, or deleted after its 90 days).
   */
  async status(jobName: string): Promise<BatchJobStatus> {
    let output: GetTranscriptionJobCommandOutput;
    try {
      output = (await this.client.send(
        new GetTranscriptionJobCommand({ TranscriptionJobName: jobName }),
      )) as GetTranscriptionJobCommandOutput;
    } catch (error) {
      // By name, as in start(): Transcribe answers BadRequestException "The requested job couldn't be found".
      if (
        error instanceof Error &&
        (error.name === 'NotFoundException' || /couldn.t be found/i.test(error.message))
      )
        return { state: 'unknown' };
      throw error;
    }
    const job = output.TranscriptionJob;
    const status = job?.TranscriptionJobStatus;
    if (status === undefined) return { state: 'unknown' };
    if (status !== 'COMPLETED' && status !== 'FAILED') return { state: 'running' };
    const failureReason = job?.FailureReason;
    return {
      state: 'ended',
      succeeded: status === 'COMPLETED',
      ...(failureReason === undefined ? {} : { failureReason }),
      permanent: TranscribeJobs.failureIsPermanent(failureReason),
      transient: TranscribeJobs.failureIsTransient(failureReason),
    };
  }

  /** `${prefix}${accountId}.${noteId}.${attempt}`; throws when the result is not a valid job name. */
  static jobNameFor(prefix: string, accountId: string, noteId: string, attempt: number): string {
    if (!JOB_NAME_CHARS.test(prefix)) throw new Error(`Job name prefix has invalid characters: ${prefix}`);
    for (const id of [accountId, noteId]) {
      if (!ID_CHARS.test(id)) throw new Error(`ID cannot be used in a job name: ${id}`);
    }
    if (!Number.isSafeInteger(attempt) || attempt < 0) throw new RangeError(`Invalid attempt: ${attempt}`);
    const name = `${prefix}${[accountId, noteId, attempt].join(SEPARATOR)}`;
    assertJobName(name);
    return name;
  }

  /** The parts of a name made by `jobNameFor`, or null for any other job (other apps share the account). */
  static parseJobName(prefix: string, name: string): JobNameParts | null {
    if (!name.startsWith(prefix)) return null;
    const parts = name.slice(prefix.length).split(SEPARATOR);
    if (parts.length !== 3) return null;
    const [accountId = '', noteId = '', attempt = ''] = parts;
    if (!ID_CHARS.test(accountId) || !ID_CHARS.test(noteId) || !ATTEMPT.test(attempt)) return null;
    return { accountId, noteId, attempt: Number(attempt) };
  }

  /** Reads a "Transcribe Job State Change" event; throws for any other event. */
  static parseJobStateChange(event: unknown): JobStateChange {
    const parsed = jobStateChangeEvent.safeParse(event);
    if (!parsed.success) {
      throw new Error(`Not a Transcribe job state change event:\n${z.prettifyError(parsed.error)}`);
    }
    const { TranscriptionJobName, TranscriptionJobStatus, FailureReason } = parsed.data.detail;
    return {
      jobName: TranscriptionJobName,
      status: TranscriptionJobStatus,
      ...(FailureReason === undefined ? {} : { failureReason: FailureReason }),
    };
  }

  /** True when the media is the problem (format, sample rate, size, length, no speech): do not retry. */
  static failureIsPermanent(reason: string | undefined): boolean {
    return reason !== undefined && PERMANENT_FAILURES.some((pattern) => pattern.test(reason));
  }

  /** True when Transcribe failed the job on its side (an internal failure): a new job may succeed. */
  static failureIsTransient(reason: string | undefined): boolean {
    return (
      reason !== undefined &&
      !TranscribeJobs.failureIsPermanent(reason) &&
      TRANSIENT_FAILURES.some((pattern) => pattern.test(reason))
    );
  }
}

function assertJobName(name: string): void {
  const valid = name.length > 0 && name.length <= JOB_NAME_MAX_LENGTH && JOB_NAME_CHARS.test(name);
  // The API reference also forbids "." and ".." on their own.
  if (!valid || name === '.' || name === '..') {
    throw new RangeError(
      `Invalid Transcribe job name (1-${JOB_NAME_MAX_LENGTH} characters of [0-9a-zA-Z._-]): ${name}`,
    );
  }
}

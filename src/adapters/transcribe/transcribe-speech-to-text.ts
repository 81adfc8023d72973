import { objectKeys } from '../../domain/object-keys.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type {
  BatchJobStatus,
  BatchRecognitionJob,
  BatchSpeechToText,
  RecognitionResult,
} from '../../ports/speech-to-text.ts';
import { parseTranscribeOutput } from './output.ts';
import { TranscribeJobs, type TranscribeSender } from './transcribe-jobs.ts';

export interface TranscribeSettings {
  bucket: string;
  /** Names every job of this deployment, so the EventBridge rule matches only ours. */
  jobPrefix: string;
  /** e.g. `en-US`, or `auto` to let Transcribe identify the language. */
  languageCode: string;
  /** The role that lets Transcribe queue jobs past the concurrent-job quota (TranscribeJobs.start). */
  dataAccessRoleArn?: string;
}

/**
 * Amazon Transcribe as a batch engine: the worker starts a job that reads the recording from the
 * bucket and writes its output next to it; the "Transcribe Job State Change" event then finishes the
 * note (functions/transcriptionCompleted.ts). No Lambda waits or polls meanwhile.
 */
export class TranscribeSpeechToText implements BatchSpeechToText {
  private readonly jobs: TranscribeJobs;

  constructor(
    client: TranscribeSender,
    private readonly blobs: BlobStore,
    private readonly settings: TranscribeSettings,
  ) {
    this.jobs = new TranscribeJobs(client);
  }

  async start(job: BatchRecognitionJob): Promise<void> {
    await this.jobs.start({
      jobName: this.jobName(job),
      mediaUri: `s3://${this.settings.bucket}/${objectKeys.audio(job.accountId, job.noteId)}`,
      outputBucket: this.settings.bucket,
      outputKey: this.outputKey(job),
      languageCode: this.settings.languageCode,
      ...(job.hints?.speakersExpected ? { maxSpeakers: job.hints.speakersExpected } : {}),
      ...(this.settings.dataAccessRoleArn ? { dataAccessRoleArn: this.settings.dataAccessRoleArn } : {}),
    });
  }

  async result(job: BatchRecognitionJob): Promise<RecognitionResult> {
    const output = await this.blobs.getJson<unknown>(this.outputKey(job));
    if (output === null) throw new Error('The Transcribe output document is missing');
    const result = parseTranscribeOutput(output);
    // A one-speaker hint is obeyed exactly: the job ran without speaker labels, so every word is
    // the default speaker (also for an output that carries labels anyway).
    if (job.hints?.speakersExpected !== 1) return result;
    return { ...result, words: result.words.map(({ speaker: _speaker, ...word }) => word) };
  }

  async cleanUp(job: BatchRecognitionJob): Promise<void> {
    await this.blobs.delete(this.outputKey(job));
  }

  status(job: BatchRecognitionJob): Promise<BatchJobStatus> {
    return this.jobs.status(this.jobName(job));
  }

  /** Reads the note and attempt back from a job name of this deployment; null for any other job. */
  parseJobName(jobName: string): BatchRecognitionJob | null {
    return TranscribeJobs.parseJobName(this.settings.jobPrefix, jobName);
  }

  private jobName(job: BatchRecognitionJob): string {
    return TranscribeJobs.jobNameFor(this.settings.jobPrefix, job.accountId, job.noteId, job.attempt);
  }

  /** One output per attempt: a late event of an earlier attempt must not read or delete a newer result. */
  private outputKey(job: BatchRecognitionJob): string {
    return objectKeys.transcribeOutput(job.accountId, job.noteId, job.attempt);
  }
}

import { Duration } from 'aws-cdk-lib';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { queueWorkers } from '../../src/routes.ts';
import { workerSizing } from '../function-sizing.ts';
import type { Alerts } from './alerts.ts';
import { WorkQueue } from './work-queue.ts';

/** The queue names src/routes.ts uses: a worker's `queue` and a function's `needs.queue`. */
export type QueueName = (typeof queueWorkers)[keyof typeof queueWorkers]['queue'];

export interface QueuesProps {
  stage: string;
  alerts: Alerts;
}

/** The work queues: each with a dead-letter queue and an alarm on it. */
export class Queues extends Construct {
  /**
   * Completed recording uploads (S3 event notifications): light work, kept apart from recognition so
   * that an upload is taken (its job `queued`) while every transcription worker is busy.
   */
  readonly uploads: WorkQueue;
  readonly transcription: WorkQueue;
  /** Insights (and, later, artifact) generation. */
  readonly generation: WorkQueue;
  /** Lookup by the names used in src/routes.ts. */
  readonly byName: Record<QueueName, IQueue>;

  constructor(scope: Construct, id: string, props: QueuesProps) {
    super(scope, id);
    this.uploads = new WorkQueue(this, 'Uploads', {
      queueName: `notes-${props.stage}-uploads`,
      consumerTimeout: workerSizing.uploadReceived.timeout,
      deadLetterConsumerTimeout: workerSizing.uploadsDeadLetter.timeout,
      // Taking an upload is a few writes: minutes of waiting means the worker is failing.
      maxMessageAge: Duration.minutes(10),
      alerts: props.alerts,
    });
    this.transcription = new WorkQueue(this, 'Transcription', {
      queueName: `notes-${props.stage}-transcription`,
      consumerTimeout: workerSizing.transcriptionWorker.timeout,
      deadLetterConsumerTimeout: workerSizing.transcriptionDeadLetter.timeout,
      // The worker only starts a Transcribe job (Transcribe queues past its own quota).
      maxMessageAge: Duration.minutes(30),
      alerts: props.alerts,
    });
    this.generation = new WorkQueue(this, 'Generation', {
      queueName: `notes-${props.stage}-generation`,
      consumerTimeout: workerSizing.generationWorker.timeout,
      deadLetterConsumerTimeout: workerSizing.generationDeadLetter.timeout,
      // One note per invocation (a podcast takes minutes) at the configured concurrency: an hour of
      // waiting is a burst the concurrency cannot carry, or a provider throttling every attempt.
      maxMessageAge: Duration.hours(1),
      alerts: props.alerts,
    });
    this.byName = {
      uploads: this.uploads.queue,
      uploadsDlq: this.uploads.deadLetterQueue,
      transcription: this.transcription.queue,
      transcriptionDlq: this.transcription.deadLetterQueue,
      generation: this.generation.queue,
      generationDlq: this.generation.deadLetterQueue,
    };
  }
}

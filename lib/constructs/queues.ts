import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { queueWorkers } from '../../src/routes.ts';
import { workerSizing } from '../function-sizing.ts';
import { WorkQueue } from './work-queue.ts';

/** The queue names src/routes.ts uses: a worker's `queue` and a function's `needs.queue`. */
export type QueueName = (typeof queueWorkers)[keyof typeof queueWorkers]['queue'];

export interface QueuesProps {
  stage: string;
  alarmTopic?: ITopic;
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
      ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
    });
    this.transcription = new WorkQueue(this, 'Transcription', {
      queueName: `notes-${props.stage}-transcription`,
      consumerTimeout: workerSizing.transcriptionWorker.timeout,
      deadLetterConsumerTimeout: workerSizing.transcriptionDeadLetter.timeout,
      ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
    });
    this.generation = new WorkQueue(this, 'Generation', {
      queueName: `notes-${props.stage}-generation`,
      consumerTimeout: workerSizing.generationWorker.timeout,
      deadLetterConsumerTimeout: workerSizing.generationDeadLetter.timeout,
      ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
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

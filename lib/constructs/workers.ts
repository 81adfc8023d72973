import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Match, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type EventWorkerName, eventWorkers, type QueueWorkerName, queueWorkers } from '../../src/routes.ts';
import { workerSizing } from '../function-sizing.ts';
import { acknowledge, wildcardResourceFinding } from '../nag.ts';
import type { Alerts } from './alerts.ts';
import { NotesFunction, type SharedFunctionProps } from './notes-function.ts';
import type { QueueName } from './queues.ts';
import { alarmOnDeadLetters, QUEUE_RETENTION } from './work-queue.ts';

export interface WorkersProps {
  shared: SharedFunctionProps;
  queues: Record<QueueName, IQueue>;
  /** Transcribe job names start with this (`notes-<stage>-`): the IAM grants and the event rule use it. */
  transcribeJobPrefix: string;
  /** Most concurrent invocations of each work queue's worker (lib/config.ts). */
  maxConcurrency: Record<'transcription' | 'generation', number>;
  alerts: Alerts;
}

/** Dead-letter consumers only mark jobs failed: Lambda's smallest maximum concurrency is plenty. */
const DEAD_LETTER_MAX_CONCURRENCY = 2;
/**
 * Taking an upload is a few writes (well under a second for a batch of ten): five invocations keep up
 * with bursts of hundreds of uploads a minute without taking the account's concurrency from the API.
 */
const UPLOADS_MAX_CONCURRENCY = 5;

/** Messages per invocation of each queue worker. */
const batchSize: Record<QueueWorkerName, number> = {
  // Light work, and a failed record is retried alone (partial batch failures).
  uploadReceived: 10,
  uploadsDeadLetter: 10,
  // One recording per invocation: a failure retries one.
  transcriptionWorker: 1,
  transcriptionDeadLetter: 10,
  // One note per invocation: a throttled provider retries one note, not ten.
  generationWorker: 1,
  generationDeadLetter: 10,
};

/**
 * Transcribe permissions by worker. Transcribe reads the media and writes its output with the
 * caller's permissions, so the starting worker's object read/write grant (its `needs`) covers that.
 */
const transcribeActions: Partial<Record<QueueWorkerName | EventWorkerName, string[]>> = {
  transcriptionWorker: ['transcribe:StartTranscriptionJob'],
  transcriptionCompleted: ['transcribe:GetTranscriptionJob'],
  // Asks where a job is whose completion event may have been missed.
  reconcileJobs: ['transcribe:GetTranscriptionJob'],
};

/**
 * How often the reconciler runs. A job whose worker died waits at most this long past its lease; a
 * Transcribe job whose event was missed, this long past RECOGNITION_CHECK_AFTER_MS.
 */
export const RECONCILE_EVERY = Duration.minutes(15);

type EventName = (typeof eventWorkers)[EventWorkerName]['event'];

/**
 * How often the retention runs (src/domain/retention.ts): a note moves to the trash, and leaves it for
 * good, at most this long after its day comes. The web app says "within the hour".
 */
export const RETENTION_EVERY = Duration.hours(1);

type ScheduledName = {
  [Name in EventWorkerName]: (typeof eventWorkers)[Name]['event'] extends 'schedule' ? Name : never;
}[EventWorkerName];

const schedules: Record<ScheduledName, { id: string; description: string; every: Duration }> = {
  reconcileJobs: {
    id: 'ReconcileJobsSchedule',
    description: 'Reconciles jobs in flight: expired leases, missed Transcribe events, lost messages',
    every: RECONCILE_EVERY,
  },
  applyRetention: {
    id: 'ApplyRetentionSchedule',
    description:
      "Moves notes past their collections' retention period to the trash, and deletes the ones it trashed after the trash period",
    every: RETENTION_EVERY,
  },
};

function maxConcurrencyOf(queue: QueueName, configured: WorkersProps['maxConcurrency']): number {
  if (queue === 'transcription' || queue === 'generation') return configured[queue];
  return queue === 'uploads' ? UPLOADS_MAX_CONCURRENCY : DEAD_LETTER_MAX_CONCURRENCY;
}

/**
 * The background functions of src/routes.ts: one per `queueWorkers` entry (an SQS event source that
 * reports partial batch failures) and one per `eventWorkers` entry (an EventBridge rule).
 */
export class Workers extends Construct {
  readonly functions: Record<QueueWorkerName | EventWorkerName, NotesFunction>;
  /**
   * Where Transcribe events go that never reached the completion function (EventBridge's retries ran
   * out) or that it failed after Lambda's retries (the record of the invocation, the event inside).
   */
  readonly transcribeEventsDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const functions: Partial<Record<QueueWorkerName | EventWorkerName, NotesFunction>> = {};
    const make = (name: QueueWorkerName | EventWorkerName) => {
      const fn = new NotesFunction(this, name, {
        handler: name,
        needs: (name in queueWorkers
          ? queueWorkers[name as QueueWorkerName]
          : eventWorkers[name as EventWorkerName]
        ).needs,
        shared: props.shared,
        ...workerSizing[name],
      });
      this.grantTranscribe(fn, transcribeActions[name], props.transcribeJobPrefix);
      functions[name] = fn;
      return fn;
    };

    for (const name of Object.keys(queueWorkers) as QueueWorkerName[]) {
      const { queue } = queueWorkers[name];
      make(name).function.addEventSource(
        new SqsEventSource(props.queues[queue], {
          batchSize: batchSize[name],
          reportBatchItemFailures: true,
          maxConcurrency: maxConcurrencyOf(queue, props.maxConcurrency),
        }),
      );
    }

    this.transcribeEventsDeadLetterQueue = new Queue(this, 'TranscribeEventsDeadLetterQueue', {
      queueName: `${props.transcribeJobPrefix}transcribe-events-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: QUEUE_RETENTION,
    });
    acknowledge(
      this.transcribeEventsDeadLetterQueue,
      'SQS3',
      'This queue is itself a dead-letter queue: of the EventBridge rule target, which names it directly, not by RedrivePolicy',
    );
    alarmOnDeadLetters(
      this,
      'TranscribeEventsDeadLetterAlarm',
      this.transcribeEventsDeadLetterQueue,
      props.alerts,
      'kept',
    );

    const subscribe: Record<EventName, (fn: NotesFunction, name: EventWorkerName) => void> = {
      // Transcribe reports the end of each job; no function polls for it.
      transcribeJobStateChange: (fn) => {
        const rule = new Rule(this, 'TranscribeJobStateChange', {
          description: `Finished Transcribe jobs of this stage (${props.transcribeJobPrefix}*)`,
          eventPattern: {
            source: ['aws.transcribe'],
            detailType: ['Transcribe Job State Change'],
            detail: {
              TranscriptionJobStatus: ['COMPLETED', 'FAILED'],
              TranscriptionJobName: Match.prefix(props.transcribeJobPrefix),
            },
          },
        });
        rule.addTarget(
          new LambdaFunction(fn.function, {
            retryAttempts: 8,
            maxEventAge: Duration.hours(6),
            deadLetterQueue: this.transcribeEventsDeadLetterQueue,
          }),
        );
        // The rule's dead-letter queue only takes events EventBridge could not hand to Lambda. Once
        // Lambda has queued one (an asynchronous invocation), it retries a throttled event for up to
        // 6 hours and a failed one twice, then discards it: its record goes to the same queue instead.
        fn.function.configureAsyncInvoke({
          retryAttempts: 2,
          maxEventAge: Duration.hours(6),
          onFailure: new SqsDestination(this.transcribeEventsDeadLetterQueue),
        });
      },
      // The reconciler (functions/reconcileJobs.ts) and the retention (functions/applyRetention.ts). A
      // failed run is not retried: the next one comes soon and reads afresh; the error alarm of
      // background functions reports it. Runs do not overlap: each timeout is well under the period.
      schedule: (fn, name) => {
        const { id, description, every } = schedules[name as ScheduledName];
        new Rule(this, id, {
          description,
          schedule: Schedule.rate(every),
          targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
        });
        fn.function.configureAsyncInvoke({ retryAttempts: 0 });
      },
    };
    for (const name of Object.keys(eventWorkers) as EventWorkerName[]) {
      subscribe[eventWorkers[name].event](make(name), name);
    }

    this.functions = functions as Record<QueueWorkerName | EventWorkerName, NotesFunction>;
  }

  private grantTranscribe(fn: NotesFunction, actions: string[] | undefined, jobPrefix: string): void {
    if (!actions) return;
    const jobs = Stack.of(this).formatArn({
      service: 'transcribe',
      resource: 'transcription-job',
      resourceName: `${jobPrefix}*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    fn.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources: [jobs] }));
    acknowledge(
      fn,
      wildcardResourceFinding(fn, jobs),
      'Job names are <prefix><account>.<note>.<attempt>, made per request: the ARN can only be this stage prefix',
    );
  }
}

import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Alerts } from './alerts.ts';

/** Receives before a message moves to the dead-letter queue (the local runtime's default too). */
export const MAX_RECEIVE_COUNT = 3;

/**
 * How long every queue keeps a message: SQS's longest. A work queue's default of 4 days would drop
 * jobs silently during a long outage of its consumer (a provider down over a holiday weekend).
 */
export const QUEUE_RETENTION = Duration.days(14);

/**
 * AWS's guidance for an SQS event source: a visibility timeout of at least six times the function
 * timeout, so a message is not redelivered while a (retried, throttled) invocation still holds it.
 */
export function visibilityTimeoutFor(consumerTimeout: Duration): Duration {
  return Duration.seconds(consumerTimeout.toSeconds() * 6);
}

export interface WorkQueueProps {
  /** `notes-<stage>-<name>`; the DLQ is `<queueName>-dlq`. */
  queueName: string;
  /** Timeout of the function that consumes the queue (or will: see the generation queue). */
  consumerTimeout: Duration;
  /** Timeout of the function that consumes the dead-letter queue, if any. */
  deadLetterConsumerTimeout?: Duration;
  /** The oldest message waiting longer than this means the consumer is failing or falling behind. */
  maxMessageAge: Duration;
  alerts: Alerts;
}

/**
 * An encrypted, TLS-only SQS queue with a dead-letter queue, both keeping messages 14 days, an alarm
 * on the dead-letter queue's depth and one on the age of the oldest waiting message.
 */
export class WorkQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
  readonly backlogAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      queueName: `${props.queueName}-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: QUEUE_RETENTION,
      ...(props.deadLetterConsumerTimeout
        ? { visibilityTimeout: visibilityTimeoutFor(props.deadLetterConsumerTimeout) }
        : {}),
    });
    this.queue = new Queue(this, 'Queue', {
      queueName: props.queueName,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: visibilityTimeoutFor(props.consumerTimeout),
      retentionPeriod: QUEUE_RETENTION,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    this.deadLetterAlarm = alarmOnDeadLetters(this, 'DeadLetterAlarm', this.deadLetterQueue, props.alerts);
    this.backlogAlarm = props.alerts.notify(
      new Alarm(this, 'BacklogAlarm', {
        alarmDescription: `The oldest message in ${props.queueName} has waited over ${props.maxMessageAge.toHumanString()}: its worker is failing, throttled or behind`,
        metric: this.queue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: props.maxMessageAge.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}

/** Any message in a dead-letter queue is work that failed for good (or is about to): someone should look. */
export function alarmOnDeadLetters(
  scope: Construct,
  id: string,
  deadLetterQueue: Queue,
  alerts: Alerts,
): Alarm {
  const alarm = new Alarm(scope, id, {
    alarmDescription: `Messages in ${deadLetterQueue.node.path}: work failed after every retry`,
    metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return alerts.notify(alarm);
}

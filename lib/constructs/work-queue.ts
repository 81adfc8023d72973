import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
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
    this.deadLetterAlarm = alarmOnDeadLetters(
      this,
      'DeadLetterAlarm',
      this.deadLetterQueue,
      props.alerts,
      // Redrive fills it, which NumberOfMessagesSent does not count: receives and depth do.
      'redriven',
    );
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

/**
 * How messages reach a dead-letter queue, which decides what its alarm can watch: `redriven`: moved
 * there by the source queue's redrive (not counted as sent) and, here, taken at once by a dead-letter
 * worker (which ends the job failed), so its depth is almost always 0; `kept`: sent there by a service
 * (a Lambda on-failure destination, an EventBridge rule) and left for a person to read.
 */
export type DeadLetterFlow = 'redriven' | 'kept';

/**
 * Any message reaching a dead-letter queue is work that failed for good (or is about to): someone
 * should look. The alarm counts arrivals, not what stays: for a redriven queue, its consumer's
 * receives (a redrive is not a send: SQS does not count it in NumberOfMessagesSent) plus any message
 * still waiting; for a kept queue, the sends. Either way it clears once five minutes pass without
 * one, so it never sits in ALARM for the 14 days a kept message stays, hiding the next failure.
 */
export function alarmOnDeadLetters(
  scope: Construct,
  id: string,
  deadLetterQueue: Queue,
  alerts: Alerts,
  flow: DeadLetterFlow,
): Alarm {
  const every = { period: Duration.minutes(5) };
  const metric =
    flow === 'redriven'
      ? new MathExpression({
          expression: 'FILL(received, 0) + FILL(waiting, 0)',
          usingMetrics: {
            received: deadLetterQueue.metricNumberOfMessagesReceived({ ...every, statistic: 'Sum' }),
            waiting: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
              ...every,
              statistic: 'Maximum',
            }),
          },
          ...every,
          label: 'dead letters received or waiting',
        })
      : deadLetterQueue.metricNumberOfMessagesSent({ ...every, statistic: 'Sum' });
  const alarm = new Alarm(scope, id, {
    alarmDescription: `Messages reached ${deadLetterQueue.node.path}: work failed after every retry`,
    metric,
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return alerts.notify(alarm);
}

import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { configuredAwsClientConfig } from '../adapters/aws-client-config.ts';
import { loadConfig } from '../config.ts';
import { traced } from '../observability.ts';
import { type BackoffSchedule, RETRY_BACKOFF, retryDelaySeconds } from './retry-backoff.ts';
import { sendAgainAfterStorageFault } from './storage-wait.ts';
import { sendAgainAfterThrottle, THROTTLE_BACKOFF } from './throttle-wait.ts';

/** Brings a message whose work failed back after a backoff instead of the queue's visibility timeout. */
export interface MessageRetry {
  /** The seconds until the message is received again. */
  returnLater(record: SQSRecord): Promise<number>;
  /**
   * Where storage faults wait for space (src/workers/storage-wait.ts): sends the message again,
   * delayed, so that the received one can be deleted; the seconds until it comes back.
   */
  waitForStorage?(record: SQSRecord): Promise<number>;
  /**
   * Where a throttled provider's work waits for its quota (src/workers/throttle-wait.ts): sends the
   * message again, delayed; the seconds until it comes back, or null once it has waited enough.
   */
  waitForThrottle?(record: SQSRecord): Promise<number | null>;
}

/**
 * ChangeMessageVisibility on the record's queue, to the backoff of its receive count, but never
 * later than the queue's own visibility timeout would bring it back (a short local timeout stays
 * short). Works the same on SQS and on the local runtime's queue emulator.
 */
export class SqsMessageRetry implements MessageRetry {
  private readonly visibilityTimeouts = new Map<string, Promise<number>>();

  constructor(
    private readonly sqs: SQSClient,
    /** Queue URLs from configuration; other queues' URLs are built from the record's ARN. */
    private readonly knownQueueUrls: string[],
    private readonly schedule: BackoffSchedule = RETRY_BACKOFF,
    /** Set where storage faults wait for space: the job lease those waits outlast. */
    storageWait?: { leaseSeconds: number },
    private readonly throttleSchedule: BackoffSchedule = THROTTLE_BACKOFF,
  ) {
    if (storageWait) {
      this.waitForStorage = (record) =>
        sendAgainAfterStorageFault(
          this.sqs,
          queueUrlOf(record.eventSourceARN, this.knownQueueUrls),
          record,
          storageWait,
        );
    }
  }

  readonly waitForStorage?: (record: SQSRecord) => Promise<number>;

  waitForThrottle(record: SQSRecord): Promise<number | null> {
    return sendAgainAfterThrottle(
      this.sqs,
      queueUrlOf(record.eventSourceARN, this.knownQueueUrls),
      record,
      this.throttleSchedule,
    );
  }

  async returnLater(record: SQSRecord): Promise<number> {
    const queueUrl = queueUrlOf(record.eventSourceARN, this.knownQueueUrls);
    const backoff = retryDelaySeconds(Number(record.attributes.ApproximateReceiveCount), this.schedule);
    const queueTimeout = await this.visibilityTimeoutOf(queueUrl);
    if (backoff >= queueTimeout) return queueTimeout;
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: backoff,
      }),
    );
    return backoff;
  }

  /** Read once per queue and container (the stack sets it; it does not change while running). */
  private visibilityTimeoutOf(queueUrl: string): Promise<number> {
    let timeout = this.visibilityTimeouts.get(queueUrl);
    if (!timeout) {
      timeout = this.sqs
        .send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }))
        .then(({ Attributes }) => Number(Attributes?.VisibilityTimeout ?? Number.NaN));
      timeout.catch(() => this.visibilityTimeouts.delete(queueUrl));
      this.visibilityTimeouts.set(queueUrl, timeout);
    }
    return timeout.then((seconds) => {
      if (!Number.isFinite(seconds)) throw new Error(`queue ${queueUrl} reported no VisibilityTimeout`);
      return seconds;
    });
  }
}

/**
 * The URL of the queue an SQS event came from: a configured URL with the same queue name, else the
 * documented SQS URL form (the SDK sends it to the configured endpoint, and the local emulator finds
 * queues by name).
 */
export function queueUrlOf(queueArn: string, knownQueueUrls: string[]): string {
  const [prefix, partition, service, region, account, name] = queueArn.split(':');
  if (prefix !== 'arn' || service !== 'sqs' || !region || !account || !name) {
    throw new Error(`not an SQS queue ARN: ${queueArn}`);
  }
  const known = knownQueueUrls.find((url) => new URL(url).pathname.split('/').at(-1) === name);
  if (known) return known;
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

let configured: SqsMessageRetry | undefined;

/** The retry of the running handler's queues, wired from configuration once per process. */
export function configuredMessageRetry(): MessageRetry {
  if (!configured) {
    const config = loadConfig();
    configured = new SqsMessageRetry(
      traced(new SQSClient(configuredAwsClientConfig(config, config.NOTES_SQS_ENDPOINT))),
      [config.NOTES_TRANSCRIPTION_QUEUE_URL, config.NOTES_GENERATION_QUEUE_URL],
      RETRY_BACKOFF,
      config.NOTES_WAIT_FOR_STORAGE === 'on' ? { leaseSeconds: config.NOTES_JOB_LEASE_SECONDS } : undefined,
    );
  }
  return configured;
}

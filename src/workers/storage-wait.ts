import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { jitteredBackoff } from '../backoff.ts';

/**
 * A message whose work failed because storage is full (or cannot be written) waits for space instead
 * of spending its receives: SQS counts every receive toward the dead-letter limit and no call resets
 * that count, so the message is sent again as a new one, delayed, and the received one is deleted as
 * handled. Its work then starts over with all its receives, however long the disk stays full; the
 * redelivered message finds its job as the failed attempt left it (the claim and the fenced writes
 * make the repeat harmless). Enabled where an operator can free the space (the local runtime,
 * NOTES_WAIT_FOR_STORAGE=on); src/config.ts says why not on AWS.
 */
export const STORAGE_WAITS_ATTRIBUTE = 'notes_storage_waits';

/**
 * Seconds between attempts while storage stays full: 2-4 s at first, doubling, at most a minute; never
 * less than the job lease (a minute by default), so about once a minute in practice.
 */
const FIRST_WAIT_SECONDS = 4;
const MAX_WAIT_SECONDS = 60;
/** SQS's limit for DelaySeconds. */
const MAX_DELAY_SECONDS = 900;

export interface StorageWaitOptions {
  /**
   * The job lease in seconds: the failed attempt could not release its job (the write is what
   * failed), so the message comes back only once that lease has run out and the job can be claimed.
   */
  leaseSeconds: number;
  random?: () => number;
}

/** How many times the message waited for storage already (0 for a message that never did). */
export function storageWaitsOf(record: SQSRecord): number {
  const waits = Number(record.messageAttributes[STORAGE_WAITS_ATTRIBUTE]?.stringValue ?? 0);
  return Number.isInteger(waits) && waits >= 0 ? waits : 0;
}

/** The delay before the next attempt of a message that waited `waits` times already. */
export function storageWaitSeconds(waits: number, { leaseSeconds, random }: StorageWaitOptions): number {
  const backoff = jitteredBackoff(Math.min(waits, 10), FIRST_WAIT_SECONDS, MAX_WAIT_SECONDS, random);
  return Math.min(MAX_DELAY_SECONDS, Math.ceil(Math.max(backoff, leaseSeconds + 1)));
}

/** Sends the record's message again to `queueUrl`, delayed; returns the delay in seconds. */
export async function sendAgainAfterStorageFault(
  sqs: SQSClient,
  queueUrl: string,
  record: SQSRecord,
  options: StorageWaitOptions,
): Promise<number> {
  const waits = storageWaitsOf(record);
  const delay = storageWaitSeconds(waits, options);
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: record.body,
      DelaySeconds: delay,
      MessageAttributes: {
        ...stringAttributesOf(record),
        [STORAGE_WAITS_ATTRIBUTE]: { DataType: 'Number', StringValue: String(waits + 1) },
      },
    }),
  );
  return delay;
}

/** The message's own string and number attributes, as SendMessage takes them. */
function stringAttributesOf(record: SQSRecord): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(record.messageAttributes)) {
    if (value.stringValue !== undefined) {
      attributes[name] = { DataType: value.dataType, StringValue: value.stringValue };
    }
  }
  return attributes;
}

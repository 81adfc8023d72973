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
  return countAttributeOf(record, STORAGE_WAITS_ATTRIBUTE);
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
  await sendAgainDelayed(sqs, queueUrl, record, delay, { [STORAGE_WAITS_ATTRIBUTE]: waits + 1 });
  return delay;
}

/**
 * Sends the record's message again as a new message, delayed `delay` seconds (at most SQS's 900),
 * with its attributes and `counts` (numbers) set: the received one can then be deleted as handled,
 * so the wait spends none of its receives.
 */
export async function sendAgainDelayed(
  sqs: SQSClient,
  queueUrl: string,
  record: SQSRecord,
  delay: number,
  counts: Record<string, number>,
): Promise<void> {
  const attributes = stringAttributesOf(record);
  for (const [name, count] of Object.entries(counts)) {
    attributes[name] = { DataType: 'Number', StringValue: String(count) };
  }
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: record.body,
      DelaySeconds: Math.min(MAX_DELAY_SECONDS, delay),
      MessageAttributes: attributes,
    }),
  );
}

/** A whole, non-negative count kept in a message attribute (0 when absent or not one). */
export function countAttributeOf(record: SQSRecord, name: string): number {
  const count = Number(record.messageAttributes[name]?.stringValue ?? 0);
  return Number.isInteger(count) && count >= 0 ? count : 0;
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

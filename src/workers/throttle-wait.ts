import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { jitteredBackoff } from '../backoff.ts';
import type { BackoffSchedule } from './retry-backoff.ts';
import { countAttributeOf, sendAgainDelayed } from './storage-wait.ts';

/**
 * A message whose work a provider throttled (Bedrock's tokens or requests per minute, Polly's rate)
 * waits for the quota instead of spending its receives: the three receives of the queue and their
 * backoff span a minute or two, shorter than the per-minute windows a burst on a low-quota account
 * must wait out, so a burst would fail jobs that only needed patience. Like a storage fault's wait
 * (storage-wait.ts) the message is sent again, delayed, and the received one deleted; unlike it the
 * waits are bounded: after MAX_THROTTLE_WAITS the ordinary retries (and then the dead-letter queue,
 * which fails the job with a detail) take over, so a quota that never returns still ends the job.
 */
export const THROTTLE_WAITS_ATTRIBUTE = 'notes_throttle_waits';

/** 15-30 s at first, doubling, at most 5 minutes: six waits span about 9 to 17 minutes. */
export const MAX_THROTTLE_WAITS = 6;
export const THROTTLE_BACKOFF: BackoffSchedule = { firstSeconds: 30, maxSeconds: 300 };

export function throttleWaitSeconds(
  waits: number,
  schedule: BackoffSchedule = THROTTLE_BACKOFF,
  random: () => number = Math.random,
): number {
  return Math.max(1, Math.ceil(jitteredBackoff(waits, schedule.firstSeconds, schedule.maxSeconds, random)));
}

/**
 * Sends the record's message again to `queueUrl`, delayed; the delay in seconds, or null when the
 * message has waited MAX_THROTTLE_WAITS times already (nothing is sent: the ordinary retry applies).
 */
export async function sendAgainAfterThrottle(
  sqs: SQSClient,
  queueUrl: string,
  record: SQSRecord,
  schedule: BackoffSchedule = THROTTLE_BACKOFF,
): Promise<number | null> {
  const waits = countAttributeOf(record, THROTTLE_WAITS_ATTRIBUTE);
  if (waits >= MAX_THROTTLE_WAITS) return null;
  const delay = throttleWaitSeconds(waits, schedule);
  await sendAgainDelayed(sqs, queueUrl, record, delay, { [THROTTLE_WAITS_ATTRIBUTE]: waits + 1 });
  return delay;
}

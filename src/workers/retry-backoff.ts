import { jitteredBackoff } from '../backoff.ts';

/**
 * When a message whose work failed should come back: exponential in its receive count, bounded, and
 * jittered so that messages throttled together do not all retry together. With the defaults a
 * message returns after 10-20 s, then 20-40 s, then 40-80 s (the queues redrive after three
 * receives), and never later than 5 minutes: seconds to minutes, as a throttled Transcribe, Bedrock
 * or Polly call needs, instead of the queue's visibility timeout (six times the function timeout).
 */
export interface BackoffSchedule {
  /** The longest wait after the first failed receive; each further receive doubles it. */
  firstSeconds: number;
  maxSeconds: number;
}

export const RETRY_BACKOFF: BackoffSchedule = { firstSeconds: 20, maxSeconds: 300 };

/** Whole seconds (what ChangeMessageVisibility takes), at least 1. */
export function retryDelaySeconds(
  receiveCount: number,
  schedule: BackoffSchedule = RETRY_BACKOFF,
  random: () => number = Math.random,
): number {
  const attempt = Number.isInteger(receiveCount) && receiveCount >= 1 ? receiveCount : 1;
  const delay = jitteredBackoff(attempt - 1, schedule.firstSeconds, schedule.maxSeconds, random);
  return Math.max(1, Math.round(delay));
}

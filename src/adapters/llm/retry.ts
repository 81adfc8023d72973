import { setTimeout as sleep } from 'node:timers/promises';
import { jitteredBackoff } from '../../backoff.ts';

export { sleep };

/** Exponential backoff with jitter, in milliseconds; `attempt` counts from 0 for the first retry. */
export function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  return jitteredBackoff(attempt, baseDelayMs, maxDelayMs);
}

/** `Retry-After` (seconds or an HTTP date), or OpenAI's `retry-after-ms`; undefined when absent. */
export function retryAfterMs(headers: Headers): number | undefined {
  const precise = headers.get('retry-after-ms');
  const ms = Number(precise);
  if (precise && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

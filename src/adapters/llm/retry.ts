import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/**
 * Exponential backoff with jitter (half fixed, half random) so that workers hitting the same quota do
 * not retry in step. `attempt` counts from 0 for the first retry.
 */
export function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
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

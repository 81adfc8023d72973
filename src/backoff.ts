/**
 * Exponential backoff with "equal jitter" (half the step fixed, half random), so that callers hitting
 * the same quota do not retry in step and a retry never comes back at once. `attempt` counts from 0
 * for the first retry; the unit is the caller's (milliseconds, seconds).
 */
export function jitteredBackoff(
  attempt: number,
  base: number,
  max: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(max, base * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
}

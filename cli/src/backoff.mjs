// @ts-check
/** Exponential backoff with jitter for transient failures (429, 5xx, network errors). */

export const RETRY_POLICY = Object.freeze({
  /** Retries after the first attempt, for a single request. */
  retries: 4,
  baseMs: 500,
  capMs: 10_000,
  /** Longest `Retry-After` honoured. */
  retryAfterCapMs: 30_000,
});

/**
 * @param {number} status
 * @returns {boolean}
 */
export function isTransientStatus(status) {
  return status === 429 || status >= 500;
}

/**
 * Delay before retry number `retryIndex` (0 for the first retry): half of the exponential step
 * fixed, half random ("equal jitter"), at least any `Retry-After` the server asked for.
 * @param {number} retryIndex
 * @param {number | undefined} [retryAfterMs]
 * @param {() => number} [random]
 * @returns {number} milliseconds
 */
export function backoffDelay(retryIndex, retryAfterMs, random = Math.random) {
  const step = Math.min(RETRY_POLICY.capMs, RETRY_POLICY.baseMs * 2 ** retryIndex);
  const jittered = step / 2 + (random() * step) / 2;
  const asked = Math.min(retryAfterMs ?? 0, RETRY_POLICY.retryAfterCapMs);
  return Math.round(Math.max(jittered, asked));
}

/**
 * `Retry-After` as milliseconds (seconds or an HTTP date), or undefined.
 * @param {string | null} header
 * @param {number} [now]
 * @returns {number | undefined}
 */
export function parseRetryAfter(header, now = Date.now()) {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * @param {number} ms
 * @returns {string} e.g. `1.4 s`
 */
export function formatSeconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

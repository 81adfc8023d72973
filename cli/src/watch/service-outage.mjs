// @ts-check
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, formatSeconds } from '../backoff.mjs';
import { UnavailableError } from '../errors.mjs';
import { info } from '../output.mjs';

/**
 * @typedef {object} OutageGuard
 * @property {<T>(work: () => Promise<T>) => Promise<T>} run runs `work` until it gets through the
 *   service; `work` must be safe to repeat
 */

/**
 * Waits out a service that is down (connection refused, 429, 5xx: the client's UnavailableError)
 * instead of giving up: retries with exponential backoff and jitter (capped at 10 s), and says so on
 * stderr once per outage, then once when the service answers again. Nothing is dropped: the work is
 * simply run again. Stops waiting when `signal` aborts (rejecting with its reason).
 * @param {AbortSignal} signal
 * @returns {OutageGuard}
 */
export function createOutageGuard(signal) {
  /** @type {number | undefined} */
  let outageSince;
  let failures = 0;
  return {
    async run(work) {
      for (;;) {
        signal.throwIfAborted();
        try {
          const result = await work();
          if (outageSince !== undefined) {
            info(`The service answers again after ${formatSeconds(Date.now() - outageSince)}; carrying on.`);
            outageSince = undefined;
            failures = 0;
          }
          return result;
        } catch (error) {
          if (!(error instanceof UnavailableError)) throw error;
          if (outageSince === undefined) {
            outageSince = Date.now();
            info(
              `Service unavailable: ${error.message}. Waiting for it, retrying with backoff; ` +
                'no file is dropped.',
            );
          }
          await sleep(backoffDelay(failures++), undefined, { signal });
        }
      }
    },
  };
}

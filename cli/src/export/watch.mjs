// @ts-check
import { formatSeconds } from '../backoff.mjs';
import { UnavailableError } from '../errors.mjs';
import { EXIT_BY_SIGNAL } from '../exit-codes.mjs';
import { info } from '../output.mjs';

/** Longest wait between two tries while the service is down. */
const OUTAGE_CAP_MS = 300_000;

/**
 * Ctrl-C (SIGINT) and SIGTERM: the first asks to stop after the note at hand (the pass then saves
 * the state), the second stops at once through `stopNow`.
 * @param {(exitCode: number) => void} stopNow
 */
export function stopOnSignals(stopNow) {
  let requested = false;
  let exitCode = 0;
  /** @type {() => void} */
  let wake = () => {};
  /** @param {NodeJS.Signals} signal */
  const onSignal = (signal) => {
    exitCode = signal === 'SIGTERM' ? EXIT_BY_SIGNAL.SIGTERM : EXIT_BY_SIGNAL.SIGINT;
    if (requested) {
      stopNow(exitCode);
      return;
    }
    requested = true;
    info('Stopping after the note at hand (press Ctrl-C again to stop at once).');
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested: () => requested,
    /** @returns {number} 130 after SIGINT, 143 after SIGTERM */
    exitCode: () => exitCode,
    /**
     * Waits `ms`, or less when a stop is asked for.
     * @param {number} ms
     * @returns {Promise<void>}
     */
    sleep(ms) {
      return new Promise((resolve) => {
        if (requested) return resolve();
        const done = () => {
          clearTimeout(timer);
          wake = () => {};
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
      });
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** @typedef {ReturnType<typeof stopOnSignals>} StopControl */

/**
 * Runs `pass` every `pollMs` until a stop is asked for. While the service is unavailable it says so
 * once, tries again with growing waits (the poll interval doubled each time, up to 5 minutes), and
 * says when it answers again. Any other error ends the watch.
 * @param {{ pass: () => Promise<void>, pollMs: number, stop: StopControl }} options
 */
export async function watchUntilStopped({ pass, pollMs, stop }) {
  let failures = 0;
  while (!stop.requested()) {
    try {
      await pass();
      if (failures > 0) info('The service answers again; watching.');
      failures = 0;
      await stop.sleep(pollMs);
    } catch (error) {
      if (!(error instanceof UnavailableError)) throw error;
      const delay = outageDelay(failures, pollMs);
      if (failures === 0) {
        info(
          `${error.message}\nStill watching: trying again in ${formatSeconds(delay)}, then less and less often ` +
            `(at most every ${OUTAGE_CAP_MS / 60_000} min) until the service answers.`,
        );
      }
      failures++;
      await stop.sleep(delay);
    }
  }
}

/**
 * @param {number} failures before this one
 * @param {number} pollMs
 * @returns {number} ms, with jitter so that many watchers do not come back at once
 */
function outageDelay(failures, pollMs) {
  const cap = Math.max(OUTAGE_CAP_MS, pollMs);
  // Never sooner than the poll interval (the service's 2 s rule included).
  return Math.round(Math.min(cap, pollMs * 2 ** failures * (1 + Math.random() * 0.25)));
}

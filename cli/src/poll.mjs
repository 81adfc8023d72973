// @ts-check
import { sleep } from './backoff.mjs';
import { ApiError, JobFailedError, WaitTimeoutError } from './errors.mjs';
import { detailOf, isFailedJob } from './http.mjs';
import { info } from './output.mjs';

/** The spec's minimum interval between polls. */
export const POLL_INTERVAL_MS = 2_000;
/** After this long, poll less often. */
const SLOW_AFTER_MS = 60_000;
const SLOW_INTERVAL_MS = 5_000;

/**
 * @typedef {object} PollOptions
 * @property {(deadline: number) => Promise<import('./http.mjs').ApiResponse>} read the matching GET,
 *   accepting 202 and 409 (it retries transient failures itself, never waiting past `deadline`)
 * @property {string} label what is awaited, e.g. `transcription of note 3f2b…`
 * @property {number} timeoutSeconds overall deadline
 * @property {string} checkLater the command that reads the result later
 * @property {string} retry the command that starts the job again
 * @property {import('./http.mjs').ApiResponse} [first] a 202 already in hand (from the POST)
 * @property {string} [awaitingUploadHint] printed once if the job waits for its audio upload
 */

/**
 * Polls until the job answers 200 (returned) or a terminal error (thrown): at least 2 s apart,
 * printing each change of status, stage or progress on stderr, until the deadline.
 * @param {PollOptions} options
 * @returns {Promise<import('./http.mjs').ApiResponse>}
 */
export async function pollUntilDone(options) {
  const started = Date.now();
  const deadline = started + options.timeoutSeconds * 1000;
  let response = options.first ?? (await options.read(deadline));
  let previous = '';
  let hinted = false;
  for (;;) {
    if (response.status === 200) {
      info(`${options.label}: ready after ${elapsed(started)}.`);
      return response;
    }
    if (response.status === 409) {
      if (isFailedJob(response.body)) {
        throw new JobFailedError(
          `The ${options.label} failed: ${detailOf(response)}\nStart it again with: ${options.retry}`,
        );
      }
      throw new ApiError(`${options.label}: HTTP 409: ${detailOf(response)}`, 409, response.body);
    }
    if (response.status !== 202) {
      throw new ApiError(
        `${options.label}: unexpected HTTP ${response.status}`,
        response.status,
        response.body,
      );
    }
    const job = /** @type {Partial<import('./types.mjs').JobStatus>} */ (response.body ?? {});
    const line = describeJob(job);
    if (line !== previous) {
      info(`[${elapsed(started).padStart(6)}] ${options.label}: ${line}`);
      previous = line;
    }
    const interval = Date.now() - started < SLOW_AFTER_MS ? POLL_INTERVAL_MS : SLOW_INTERVAL_MS;
    if (Date.now() + interval > deadline) {
      throw new WaitTimeoutError(
        `Stopped waiting: the ${options.label} did not finish within --timeout ${options.timeoutSeconds} s ` +
          `(still ${job.status ?? 'pending'}, stage ${job.stage ?? 'unknown'}).\n` +
          `The job is not cancelled; check it later with: ${options.checkLater}`,
      );
    }
    if (options.awaitingUploadHint && !hinted && job.stage === 'awaiting_upload') {
      info(options.awaitingUploadHint);
      hinted = true;
    }
    await sleep(interval);
    response = await options.read(deadline);
  }
}

/**
 * @param {Partial<import('./types.mjs').JobStatus>} job
 * @param {number} [now]
 * @returns {string} e.g. `processing, stage recognizing, 45%` or
 *   `processing, stage waiting, 1 recording ahead, starts in about 3 min`
 */
export function describeJob(job, now = Date.now()) {
  const parts = [job.status ?? 'pending'];
  if (job.stage && job.stage !== job.status) parts.push(`stage ${job.stage}`);
  if (typeof job.progress === 'number') parts.push(`${Math.round(job.progress * 100)}%`);
  if (job.stage === 'waiting' && job.waiting) {
    const ahead = job.waiting.recordings_ahead;
    parts.push(`${ahead} ${ahead === 1 ? 'recording' : 'recordings'} ahead`);
    const startsAt = job.waiting.estimated_start_at;
    // Whole minutes, so that the line (printed on every change) does not change at every poll.
    if (typeof startsAt === 'number') {
      const minutes = Math.round((startsAt - now) / 60_000);
      parts.push(minutes < 1 ? 'starts within a minute' : `starts in about ${minutes} min`);
    }
  }
  return parts.join(', ');
}

/**
 * @param {number} started
 * @returns {string}
 */
function elapsed(started) {
  return `${Math.round((Date.now() - started) / 1000)} s`;
}

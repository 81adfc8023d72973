// @ts-check

import { info, printJson, printText } from '../output.mjs';
import { describeJob } from '../poll.mjs';

/**
 * `--wait` and `--timeout` for commands that start or read a job.
 * @param {number} defaultSeconds
 * @param {string} what what is awaited
 * @returns {Record<string, import('../types.mjs').OptionSpec>}
 */
export function waitOptions(defaultSeconds, what) {
  return {
    wait: {
      type: 'boolean',
      description: `Poll until ${what} is ready (at least 2 s apart) and print it`,
    },
    timeout: {
      type: 'string',
      value: 'S',
      description: `With --wait: give up after S seconds, exit 7 (default ${defaultSeconds})`,
    },
  };
}

/**
 * Prints a response body: JSON pretty-printed, export text as is. A 202 is the job status, not a
 * result: said on stderr, with the command that polls it.
 * @param {import('../http.mjs').ApiResponse} response
 * @param {string} pollCommand
 */
export function printResponse(response, pollCommand) {
  if (typeof response.body === 'string') printText(response.body);
  else printJson(response.body);
  if (response.status === 202) {
    const job = /** @type {Partial<import('../types.mjs').JobStatus>} */ (response.body ?? {});
    info(
      `Not a result yet: this is the job status (${describeJob(job)}). ` +
        `Poll it with '${pollCommand}', or add --wait.`,
    );
  }
}

/**
 * The ETag on stderr, so stdout stays one JSON document.
 * @param {import('../http.mjs').ApiResponse} response
 */
export function printEtag(response) {
  const etag = response.headers.get('etag');
  if (etag) info(`ETag: ${etag}`);
}

/**
 * @param {string} noteId
 * @returns {string}
 */
export function notePath(noteId) {
  return `/v1/notes/${encodeURIComponent(noteId)}`;
}

/**
 * @param {string} noteId
 * @returns {string} e.g. `3f2b8c1e…`, for progress labels
 */
export function shortId(noteId) {
  return noteId.slice(0, 8);
}

// @ts-check
/** Exit codes of every `notes` command (documented in README.md and `notes --help`). */

export const EXIT = Object.freeze({
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  REJECTED: 6,
  TIMEOUT: 7,
  UNAVAILABLE: 8,
});

/** One line per code, for `notes --help` and error messages. */
/** The shell's convention for a process ended by a signal: 128 + the signal's number. */
export const EXIT_BY_SIGNAL = Object.freeze({ SIGINT: 130, SIGTERM: 143 });

export const EXIT_CODE_HELP = [
  [EXIT.OK, 'success'],
  [EXIT.UNEXPECTED, 'unexpected error'],
  [EXIT.USAGE, 'usage error (bad arguments, missing or wrong --confirm); nothing was sent'],
  [EXIT.AUTH, 'authentication: NOTES_API_KEY missing, or rejected (401, 403)'],
  [EXIT.NOT_FOUND, 'not found (404)'],
  [EXIT.CONFLICT, 'conflict (409), a note changed since --if-match (412), or a job that ended failed'],
  [EXIT.REJECTED, 'request rejected (400, 413, 415, 422, other 4xx)'],
  [EXIT.TIMEOUT, '--wait deadline (--timeout) reached; the job is not cancelled'],
  [EXIT.UNAVAILABLE, 'service unavailable (429, 5xx or network error after retries)'],
  [EXIT_BY_SIGNAL.SIGINT, 'notes watch or export stopped by Ctrl-C (143: by SIGTERM); its state is saved'],
];

/**
 * The exit code for a final (non-retried) HTTP error status.
 * @param {number} status
 * @returns {number}
 */
export function exitCodeForStatus(status) {
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 409 || status === 412) return EXIT.CONFLICT;
  if (status === 429 || status >= 500) return EXIT.UNAVAILABLE;
  if (status >= 400) return EXIT.REJECTED;
  return EXIT.UNEXPECTED;
}

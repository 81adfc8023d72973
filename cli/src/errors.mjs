// @ts-check
import { EXIT, exitCodeForStatus } from './exit-codes.mjs';

/** An error that ends the command with a given exit code and a message for stderr. */
export class CliError extends Error {
  /**
   * @param {string} message
   * @param {number} exitCode
   */
  constructor(message, exitCode) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Bad arguments: nothing was sent. */
export class UsageError extends CliError {
  /**
   * @param {string} message
   * @param {string} [command] full command name, for the "see --help" hint
   */
  constructor(message, command) {
    super(command ? `${message}\nRun 'notes ${command} --help' for usage.` : message, EXIT.USAGE);
    this.name = 'UsageError';
  }
}

/** The API answered with an error status (after any retries). */
export class ApiError extends CliError {
  /**
   * @param {string} message
   * @param {number} status
   * @param {unknown} body
   */
  constructor(message, status, body) {
    super(message, exitCodeForStatus(status));
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/** A job ended `failed` (a 409 with `status: "failed"` from a read). */
export class JobFailedError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, EXIT.CONFLICT);
    this.name = 'JobFailedError';
  }
}

/** Network errors, 429 and 5xx that outlasted the retries. */
export class UnavailableError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, EXIT.UNAVAILABLE);
    this.name = 'UnavailableError';
  }
}

/** The --wait deadline passed before the job finished. */
export class WaitTimeoutError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, EXIT.TIMEOUT);
    this.name = 'WaitTimeoutError';
  }
}

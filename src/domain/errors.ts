/**
 * Domain errors. The HTTP layer maps each to a status code in one place (src/http/error-mapper.ts);
 * workers use `permanent` to decide between failing a job and letting the queue retry.
 */
import type { JobStatusView } from './job.ts';

export abstract class DomainError extends Error {
  abstract readonly status: number;
  override readonly name: string = this.constructor.name;
}

export class BadRequestError extends DomainError {
  readonly status = 400;
}
export class UnauthorizedError extends DomainError {
  readonly status = 401;
  /** The `WWW-Authenticate` challenge, when it says more than "send a credential" (RFC 6750 section 3). */
  constructor(
    message: string,
    readonly challenge?: string,
  ) {
    super(message);
  }
}
/** The credential is good but does not allow this operation (an OAuth token short of a scope). */
export class ForbiddenError extends DomainError {
  readonly status = 403;
  constructor(
    message: string,
    readonly challenge?: string,
  ) {
    super(message);
  }
}
export class NotFoundError extends DomainError {
  readonly status = 404;
}
export class ConflictError extends DomainError {
  readonly status = 409;
}
/** A job that failed with this detail will never succeed on the same bytes. */
export class FailedJobError extends ConflictError {
  constructor(readonly job: JobStatusView) {
    super(job.detail ?? 'The job failed');
  }
}
/** A precondition (If-Match) named a state of the resource that is no longer current. */
export class PreconditionFailedError extends DomainError {
  readonly status = 412;
}
/** A change that must name the state it was made against came without If-Match (RFC 6585 §3). */
export class PreconditionRequiredError extends DomainError {
  readonly status = 428;
}
export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}
export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
}

/** The uploaded file could not be decoded as audio. Permanent: retrying the same bytes cannot help. */
export class UnreadableAudioError extends Error {
  override readonly name = 'UnreadableAudioError';
}

/** The request is well-formed but asks for something the service cannot do (e.g. an unsupported language). */
export class UnprocessableError extends DomainError {
  readonly status = 422;
}

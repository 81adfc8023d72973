import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, FailedJobError, ForbiddenError, UnauthorizedError } from '../domain/errors.ts';
import { logger } from '../logging.ts';
import {
  GenerationFailedError,
  ProviderMisconfiguredError,
  ProviderThrottledError,
  ProviderTimedOutError,
} from '../ports/generation-errors.ts';
import { storageFaultOf } from '../ports/storage-faults.ts';
import { jsonResponse } from './response.ts';

/** The one place errors become HTTP responses. Only messages written for users are exposed. */
export function toErrorResponse(error: unknown): APIGatewayProxyStructuredResultV2 {
  if (error instanceof FailedJobError) {
    return jsonResponse(error.status, {
      detail: error.message,
      status: 'failed',
      note_id: error.job.note_id,
    });
  }
  if (error instanceof DomainError) {
    const challenge =
      error instanceof UnauthorizedError || error instanceof ForbiddenError ? error.challenge : undefined;
    const headers: Record<string, string> =
      challenge !== undefined
        ? { 'WWW-Authenticate': challenge }
        : error.status === 401
          ? { 'WWW-Authenticate': 'Bearer realm="notes"' }
          : {};
    return jsonResponse(error.status, { detail: error.message }, headers);
  }
  // Provider errors (Ask runs inference in the request): their messages name the provider and the
  // exception, never request content, but the client only needs to know what to do next.
  if (error instanceof ProviderThrottledError) {
    logger.warn('Text provider throttled', { error: error.message });
    return jsonResponse(429, { detail: 'The AI provider is temporarily rate-limited; retry later.' });
  }
  // Only the operator can fix a denied, unknown or retired model: say what to change, not "retry".
  // The message names the model and the setting, never request content; the adapter logged AWS's own.
  if (error instanceof ProviderMisconfiguredError) {
    logger.error('Text provider misconfigured', { error: error.message });
    return jsonResponse(503, { detail: error.message });
  }
  if (error instanceof ProviderTimedOutError) {
    logger.warn('Text provider timed out', { error: error.message });
    const seconds = Math.ceil(error.timeoutMs / 1000);
    return jsonResponse(504, {
      detail: `The AI provider gave no answer within ${seconds} s; retry later, or ask about fewer notes.`,
    });
  }
  if (error instanceof GenerationFailedError) {
    logger.warn('Text provider failed', { error: error.message });
    return jsonResponse(502, { detail: 'An answer could not be generated; retry later.' });
  }
  const fault = storageFault(error);
  if (fault) {
    logger.error('Storage fault', { fault: fault.status, error: errorName(error) });
    return jsonResponse(fault.status, { detail: fault.detail });
  }
  logger.error('Unhandled error', {
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack }
        : String(error),
  });
  return jsonResponse(500, {
    detail: 'Internal error: the request could not be completed. Try again later.',
  });
}

/**
 * Storage that cannot take a write (src/ports/storage-faults.ts): no space left (507), or a data
 * directory the service may not write (503). Nothing was written, so the client can retry once the
 * operator has fixed it.
 */
export function storageFault(error: unknown): { status: 507 | 503; detail: string } | null {
  switch (storageFaultOf(error)) {
    case 'full':
      return {
        status: 507,
        detail:
          'The service has run out of storage space, so nothing was saved. Free disk space (locally: on the drive that holds the data directory) and retry.',
      };
    case 'unwritable':
      return {
        status: 503,
        detail: 'The service cannot write its data right now, so nothing was saved. Retry later.',
      };
    default:
      return null;
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

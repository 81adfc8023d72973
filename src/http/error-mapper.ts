import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError } from '../domain/errors.ts';
import { FailedJobError } from '../domain/transcription.ts';
import { logger } from '../logging.ts';
import { GenerationFailedError, ProviderThrottledError } from '../ports/generation-errors.ts';
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
    const headers: Record<string, string> =
      error.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="notes"' } : {};
    return jsonResponse(error.status, { detail: error.message }, headers);
  }
  // Provider errors (Ask runs inference in the request): their messages name the provider and the
  // exception, never request content, but the client only needs to know what to do next.
  if (error instanceof ProviderThrottledError) {
    logger.warn('Text provider throttled', { error: error.message });
    return jsonResponse(429, { detail: 'The AI provider is temporarily rate-limited; retry later.' });
  }
  if (error instanceof GenerationFailedError) {
    logger.warn('Text provider failed', { error: error.message });
    return jsonResponse(502, { detail: 'An answer could not be generated; retry later.' });
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

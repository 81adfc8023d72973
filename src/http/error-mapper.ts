import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError } from '../domain/errors.ts';
import { FailedJobError } from '../domain/transcription.ts';
import { logger } from '../logging.ts';
import { jsonResponse } from './response.ts';

/** The one place errors become HTTP responses. Messages are exposed only below 500. */
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

import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs. Call sites log identifiers and outcomes only: never headers, keys, request or
 * response bodies, audio or transcript text.
 */
export const logger = new Logger({
  serviceName: 'notes',
  logLevel: (process.env.NOTES_LOG_LEVEL ?? 'INFO') as 'INFO',
});

import type { LogItem } from '@aws-lambda-powertools/logger';
import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Logs. Call sites log identifiers and outcomes only: never headers, keys, request or response
 * bodies, audio or transcript text.
 *
 * Two formats (NOTES_LOG_FORMAT): `json`, one JSON object per line, for a log collector (CloudWatch
 * on Lambda, the container's log driver); `text`, one short line a person reads in a terminal
 * (`20:05:01 request route=updateNote status=200`). The default is `json` on Lambda and wherever the
 * environment says so (the container image sets it), `text` on a terminal of one's own (`npm start`).
 */
export type LogFormat = 'json' | 'text';

export function logFormatOf(env: NodeJS.ProcessEnv): LogFormat {
  const chosen = env.NOTES_LOG_FORMAT?.trim().toLowerCase();
  if (chosen === 'json' || chosen === 'text') return chosen;
  return env.AWS_LAMBDA_FUNCTION_NAME ? 'json' : 'text';
}

/** What a person never needs to read in a terminal: the same on every line, or for machines. */
const TEXT_LEFT_OUT = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'requestId']);
const LEVEL_WORDS: Record<string, string> = { WARN: 'warning', ERROR: 'error', CRITICAL: 'error' };

/** One log item as a line for a terminal: time, level when not routine, message, then key=value. */
export function textLine(attributes: Record<string, unknown>): string {
  // The terminal's own clock (the item's timestamp is UTC, for collectors).
  const at = new Date(String(attributes.timestamp));
  const time = Number.isNaN(at.getTime()) ? '' : at.toTimeString().slice(0, 8);
  const level = LEVEL_WORDS[String(attributes.level)];
  const fields = Object.entries(attributes)
    .filter(([key, value]) => !TEXT_LEFT_OUT.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  return [time, level && `${level}:`, String(attributes.message ?? ''), ...fields].filter(Boolean).join(' ');
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const CONSOLE_OF_LEVEL = { DEBUG: 'debug', INFO: 'info', WARN: 'warn' } as const;

/**
 * Powertools' logger, printing through the global console off Lambda: in `text` format as
 * textLine, and in either format where a test runner can hold a passing test's lines back. On
 * Lambda it prints as Powertools does (its own console, which Lambda's prefixing does not touch).
 */
class NotesLogger extends Logger {
  constructor(
    private readonly format: LogFormat,
    private readonly onLambda: boolean,
  ) {
    super({ serviceName: 'notes', logLevel: (process.env.NOTES_LOG_LEVEL ?? 'INFO') as 'INFO' });
  }

  protected override printLog(logLevel: number, log: LogItem): void {
    if (this.onLambda && this.format === 'json') {
      super.printLog(logLevel, log);
      return;
    }
    log.prepareForPrint();
    const attributes = log.getAttributes() as Record<string, unknown>;
    const line =
      this.format === 'text' ? textLine(attributes) : JSON.stringify(attributes, this.getJsonReplacer());
    const method = CONSOLE_OF_LEVEL[String(attributes.level) as keyof typeof CONSOLE_OF_LEVEL] ?? 'error';
    console[method](line);
  }
}

export const logger: Logger = new NotesLogger(
  logFormatOf(process.env),
  Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME),
);

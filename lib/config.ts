import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { HTTP_ORIGIN } from '../src/config.ts';

/**
 * Deployment settings, read once from CDK context: `cdk.json` holds the defaults and
 * `cdk deploy -c key=value` overrides them. Values given with `-c` arrive as strings, so every reader
 * accepts both the JSON type and its string form. No account IDs or secrets belong here.
 */
export interface NotesStackConfig {
  /** Suffix of every physical name (`notes-<stage>-...`), so stages can share an account. */
  stage: string;
  logRetentionDays: RetentionDays;
  /** DynamoDB table and Cognito user pool deletion protection. */
  deletionProtection: boolean;
  /** Origins allowed to PUT a recording straight to the data bucket with a presigned URL. */
  uploadCorsOrigins: string[];
  transcribeLanguageCode: string;
  /**
   * Bedrock models or inference profile IDs that Ask and the generation worker may invoke; the first
   * is the one they use (docs/deploy.md, "Bedrock").
   */
  bedrockModelIds: string[];
  /** Destination Regions of the geographic inference profiles; undefined: the documented defaults. */
  bedrockProfileRegions?: string[];
  apiThrottle: { rateLimit: number; burstLimit: number };
  /**
   * Most concurrent invocations of each work queue's consumer (the SQS event source's maximum
   * concurrency, 2-1000), so a burst of uploads cannot use up Transcribe's or Bedrock's quota, or the
   * account's Lambda concurrency that the API needs.
   */
  workerMaxConcurrency: { transcription: number; generation: number };
  /**
   * Days a note the retention moved to the trash stays there before it is deleted for good
   * (NOTES_TRASH_DAYS, src/domain/retention.ts).
   */
  trashDays: number;
  /** Subscribed by email to the alarm topic; without it the topic has no subscriber until one is added. */
  alarmEmail?: string;
  /** OAuth resource identifier of the MCP server; defaults to the HTTP API URL + `/mcp`. */
  mcpResourceUrl?: string;
  /**
   * Browser origins, besides the API's own, allowed to call /mcp (NOTES_MCP_ALLOWED_ORIGINS), e.g. a
   * hosted MCP client's web app. Empty: desktop clients only (they send no Origin).
   */
  mcpAllowedOrigins: string[];
  /** Cognito managed-login domain prefix (globally unique per region); defaults to `notes-<stage>-<account>`. */
  authDomainPrefix?: string;
  /**
   * The web app's origin when a domain of the operator's fronts its CloudFront distribution (default:
   * the distribution's own): its `/app/callback` becomes a redirect URI of the first-party OAuth
   * client, and REST allows it (CORS). NOTES_WEB_APP_URL in the functions.
   */
  webAppUrl?: string;
}

export const contextDefaults = {
  stage: 'dev',
  logRetentionDays: 30,
  deletionProtection: true,
  uploadCorsOrigins: ['*'],
  transcribeLanguageCode: 'en-US',
  bedrockModelIds: ['us.anthropic.claude-sonnet-4-6'],
  apiThrottleRate: 50,
  apiThrottleBurst: 100,
  transcriptionMaxConcurrency: 10,
  generationMaxConcurrency: 5,
  trashDays: 30,
} as const;

export function readStackConfig(node: Node): NotesStackConfig {
  const context = (key: string): unknown => node.tryGetContext(key);
  const stage = readString(context('stage'), 'stage') ?? contextDefaults.stage;
  // Names like notes-<stage>-transcriptionDeadLetter must stay within Lambda's 64 characters and be
  // valid in S3, SQS, Cognito and CloudWatch names alike.
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error(`context stage: "${stage}" must be 1-20 lower-case letters, digits or hyphens`);
  }
  const logRetentionDays =
    readNumber(context('logRetentionDays'), 'logRetentionDays') ?? contextDefaults.logRetentionDays;
  if (!(Object.values(RetentionDays) as number[]).includes(logRetentionDays)) {
    throw new Error(
      `context logRetentionDays: ${logRetentionDays} is not a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, ...)`,
    );
  }
  const alarmEmail = readString(context('alarmEmail'), 'alarmEmail');
  const mcpResourceUrl = readString(context('mcpResourceUrl'), 'mcpResourceUrl');
  const authDomainPrefix = readString(context('authDomainPrefix'), 'authDomainPrefix');
  const bedrockProfileRegions = readList(context('bedrockProfileRegions'), 'bedrockProfileRegions');
  const mcpAllowedOrigins = readList(context('mcpAllowedOrigins'), 'mcpAllowedOrigins') ?? [];
  const notAnOrigin = mcpAllowedOrigins.find((origin) => !HTTP_ORIGIN.test(origin));
  if (notAnOrigin !== undefined) {
    throw new Error(
      `context mcpAllowedOrigins: "${notAnOrigin}" is not an http(s) origin such as https://app.example.com (no path, no wildcard)`,
    );
  }
  const webAppUrl = readString(context('webAppUrl'), 'webAppUrl');
  // An origin has no user name or password: one here would be published in the stack's outputs.
  if (webAppUrl !== undefined && (!HTTP_ORIGIN.test(webAppUrl) || webAppUrl.includes('@'))) {
    throw new Error(
      `context webAppUrl: "${webAppUrl.replace(/\/\/[^/]*@/, '//…@')}" is not an http(s) origin such as https://app.example.com (no user name or password)`,
    );
  }
  return {
    stage,
    logRetentionDays: logRetentionDays as RetentionDays,
    deletionProtection:
      readBoolean(context('deletionProtection'), 'deletionProtection') ?? contextDefaults.deletionProtection,
    uploadCorsOrigins: readList(context('uploadCorsOrigins'), 'uploadCorsOrigins') ?? [
      ...contextDefaults.uploadCorsOrigins,
    ],
    transcribeLanguageCode:
      readString(context('transcribeLanguageCode'), 'transcribeLanguageCode') ??
      contextDefaults.transcribeLanguageCode,
    bedrockModelIds: readList(context('bedrockModelIds'), 'bedrockModelIds') ?? [
      ...contextDefaults.bedrockModelIds,
    ],
    apiThrottle: {
      rateLimit: readNumber(context('apiThrottleRate'), 'apiThrottleRate') ?? contextDefaults.apiThrottleRate,
      burstLimit:
        readNumber(context('apiThrottleBurst'), 'apiThrottleBurst') ?? contextDefaults.apiThrottleBurst,
    },
    mcpAllowedOrigins,
    trashDays: readTrashDays(context('trashDays')),
    workerMaxConcurrency: {
      transcription: readMaxConcurrency(context, 'transcriptionMaxConcurrency'),
      generation: readMaxConcurrency(context, 'generationMaxConcurrency'),
    },
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(mcpResourceUrl ? { mcpResourceUrl } : {}),
    ...(authDomainPrefix ? { authDomainPrefix } : {}),
    ...(webAppUrl ? { webAppUrl } : {}),
    ...(bedrockProfileRegions ? { bedrockProfileRegions } : {}),
  };
}

/** As NOTES_TRASH_DAYS accepts: a whole number of days from 1 to 3650. */
function readTrashDays(raw: unknown): number {
  const value = readNumber(raw, 'trashDays') ?? contextDefaults.trashDays;
  if (!Number.isInteger(value) || value < 1 || value > 3650) {
    throw new Error(`context trashDays: ${value} must be a whole number of days from 1 to 3650`);
  }
  return value;
}

/** Lambda accepts 2 to 1000 as an SQS event source's maximum concurrency. */
function readMaxConcurrency(
  context: (key: string) => unknown,
  key: 'transcriptionMaxConcurrency' | 'generationMaxConcurrency',
): number {
  const value = readNumber(context(key), key) ?? contextDefaults[key];
  if (!Number.isInteger(value) || value < 2 || value > 1000) {
    throw new Error(`context ${key}: ${value} must be a whole number from 2 to 1000 (Lambda's limits)`);
  }
  return value;
}

function readString(value: unknown, key: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new Error(`context ${key}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

function readNumber(value: unknown, key: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
    throw new Error(`context ${key}: expected a non-negative number, got ${JSON.stringify(value)}`);
  }
  return number;
}

function readBoolean(value: unknown, key: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key}: expected true or false, got ${JSON.stringify(value)}`);
}

/** A JSON array, a JSON array given as a string (`-c 'key=["a","b"]'`), or a comma-separated string. */
function readList(value: unknown, key: string): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let list: unknown = value;
  if (typeof value === 'string') {
    list = value.trim().startsWith('[') ? JSON.parse(value) : value.split(',').map((item) => item.trim());
  }
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string' && item)) {
    throw new Error(`context ${key}: expected a non-empty list of strings, got ${JSON.stringify(value)}`);
  }
  return list;
}

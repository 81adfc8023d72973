import { countAwsCalls } from '../adapters/aws-call-count.ts';
import { configuredAwsClientConfig } from '../adapters/aws-client-config.ts';
import { DynamoAccountStore } from '../adapters/dynamodb/account-store.ts';
import { createDocumentClient } from '../adapters/dynamodb/client.ts';
import { DynamoCollectionStore } from '../adapters/dynamodb/collection-store.ts';
import { DynamoNoteStore } from '../adapters/dynamodb/note-store.ts';
import { DynamoOAuthStore } from '../adapters/dynamodb/oauth-store.ts';
import { DynamoSearchIndex } from '../adapters/dynamodb/search-index.ts';
import { DynamoVoiceProfileStore } from '../adapters/dynamodb/voice-profile-store.ts';
import { BlobStoreLoadedOnFirstUse, WorkQueueLoadedOnFirstUse } from '../adapters/loaded-on-first-use.ts';
import { withoutIdleWork } from '../adapters/sdk-idle-work.ts';
import { pollyLanguages } from '../adapters/synthesis/polly-voices.ts';
import { type Config, loadConfig } from '../config.ts';
import { CachedAccountStore } from '../domain/api-key-cache.ts';
import type { DomainDeps } from '../domain/deps.ts';
import type { LanguageSupport } from '../domain/languages.ts';
import { recordingTypesFor } from '../domain/recording-types.ts';
import { logger } from '../logging.ts';
import { OAuthSessions } from '../oauth/sessions.ts';
import { traced } from '../observability.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { SessionStore } from '../ports/session-store.ts';
import type { WorkQueue } from '../ports/work-queue.ts';
import { workerStopSignal } from '../worker-stop.ts';

/** What the API handlers use. Speech engines live in worker-services.ts, so API bundles stay small. */
export interface Services extends DomainDeps {
  accounts: CachedAccountStore;
  /** The account's signed-in applications and browsers (the authorization server's records). */
  sessions: SessionStore;
  /** What the configured text engine and speech synthesizer can write and say. */
  languages: LanguageSupport;
  /** The recording content types the configured speech engine reads (submitTranscription refuses others). */
  recordingTypes: readonly string[];
}

/**
 * Replaced in each Lambda bundle by whether the function's `needs` (src/routes.ts) hold `objects`
 * and a `queue` (lib/bundling.ts `wiringDefines`). Where false, esbuild drops the adapter below (a
 * constant condition at the top level of this module), and the bundle carries no S3 or SQS code at
 * all. Undefined in unbundled code (tests, `npm start`), which wires both.
 */
declare const NOTES_BUNDLE_WIRES_OBJECTS: boolean | undefined;
declare const NOTES_BUNDLE_WIRES_QUEUE: boolean | undefined;

const s3BlobStore =
  typeof NOTES_BUNDLE_WIRES_OBJECTS === 'undefined' || NOTES_BUNDLE_WIRES_OBJECTS
    ? async (config: Config): Promise<BlobStore> => {
        const [{ S3Client }, { S3BlobStore }] = await Promise.all([
          import('@aws-sdk/client-s3'),
          import('../adapters/s3/blob-store.ts'),
        ]);
        const s3 = traced(new S3Client(configuredAwsClientConfig(config, config.NOTES_S3_ENDPOINT)));
        withoutIdleWork(s3.middlewareStack, Boolean(config.NOTES_S3_ENDPOINT));
        countAwsCalls(s3.middlewareStack, 's3');
        // Presigning makes no request: a client for the public origin only signs URLs for it.
        const presigner = config.NOTES_S3_PUBLIC_ENDPOINT
          ? new S3Client(configuredAwsClientConfig(config, config.NOTES_S3_PUBLIC_ENDPOINT))
          : s3;
        return new S3BlobStore(s3, config.NOTES_BUCKET_NAME, config.NOTES_UPLOAD_URL_TTL_SECONDS, presigner);
      }
    : undefined;

const sqsWorkQueue =
  typeof NOTES_BUNDLE_WIRES_QUEUE === 'undefined' || NOTES_BUNDLE_WIRES_QUEUE
    ? async (config: Config): Promise<WorkQueue> => {
        const [{ SQSClient }, { SqsWorkQueue }] = await Promise.all([
          import('@aws-sdk/client-sqs'),
          import('../adapters/sqs/work-queue.ts'),
        ]);
        const sqs = traced(new SQSClient(configuredAwsClientConfig(config, config.NOTES_SQS_ENDPOINT)));
        withoutIdleWork(sqs.middlewareStack, Boolean(config.NOTES_SQS_ENDPOINT));
        countAwsCalls(sqs.middlewareStack, 'sqs');
        return new SqsWorkQueue(sqs, config.NOTES_TRANSCRIPTION_QUEUE_URL, config.NOTES_GENERATION_QUEUE_URL);
      }
    : undefined;

/** The loader of an adapter this function's bundle left out: using it is a mistake in its `needs`. */
function notWired(need: 'objects' | 'queue'): () => Promise<never> {
  return () =>
    Promise.reject(
      new Error(`this function's needs (src/routes.ts) hold no ${need}: its bundle does not wire them`),
    );
}

/** The search index's writes in flight against the local emulator (see createServices). */
const LOCAL_INDEX_WRITES_IN_FLIGHT = 2;

let services: Services | undefined;

/** Wires adapters from configuration once per process (a Lambda container reuses them across invocations). */
export function getServices(): Services {
  services ??= createServices(loadConfig());
  return services;
}

export function createServices(config: Config): Services {
  // Traced on Lambda (X-Ray subsegments per AWS call); the tracer is off elsewhere.
  const db = traced(createDocumentClient(configuredAwsClientConfig(config, config.NOTES_DYNAMODB_ENDPOINT)));
  countAwsCalls(db.middlewareStack, 'dynamodb');
  // S3 and SQS are imported on first use: a handler that never stores an object or queues a job
  // never loads their clients (src/adapters/loaded-on-first-use.ts).
  const blobs = new BlobStoreLoadedOnFirstUse(s3BlobStore ? () => s3BlobStore(config) : notWired('objects'));
  const queue = new WorkQueueLoadedOnFirstUse(sqsWorkQueue ? () => sqsWorkQueue(config) : notWired('queue'));
  return {
    // The key check of each request usually reads nothing (src/domain/api-key-cache.ts).
    accounts: new CachedAccountStore(new DynamoAccountStore(db, config.NOTES_TABLE_NAME)),
    sessions: new OAuthSessions(new DynamoOAuthStore(db, config.NOTES_TABLE_NAME)),
    notes: new DynamoNoteStore(db, config.NOTES_TABLE_NAME),
    collections: new DynamoCollectionStore(db, config.NOTES_TABLE_NAME),
    voiceProfiles: new DynamoVoiceProfileStore(db, config.NOTES_TABLE_NAME),
    blobs,
    // Locally the emulator answers one request at a time, the API's reads among them: the index's
    // writes (a note added or removed, a bulk load) keep few in flight there, so a read waits
    // behind two, not sixteen.
    search: new DynamoSearchIndex(
      db,
      config.NOTES_TABLE_NAME,
      config.NOTES_DYNAMODB_ENDPOINT ? { writesInFlight: LOCAL_INDEX_WRITES_IN_FLIGHT } : {},
    ),
    queue,
    languages: languageSupport(config),
    recordingTypes: recordingTypesFor(config.NOTES_SPEECH_ENGINE),
    now: Date.now,
    jobLeaseMs: config.NOTES_JOB_LEASE_SECONDS * 1000,
    stopSignal: workerStopSignal,
    warn: (message, fields) => logger.warn(message, fields),
    ...(config.NOTES_WORK_DIR ? { scratchRoot: config.NOTES_WORK_DIR } : {}),
  };
}

/** flite ships English voices only. */
const FLITE_LANGUAGES = ['en'];

function languageSupport(config: Config): LanguageSupport {
  return {
    text: config.NOTES_TEXT_ENGINE === 'local' ? 'transcript' : 'any',
    speech: config.NOTES_SPEECH_SYNTHESIZER === 'polly' ? pollyLanguages() : FLITE_LANGUAGES,
  };
}

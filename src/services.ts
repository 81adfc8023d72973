import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { countAwsCalls } from './adapters/aws-call-count.ts';
import { configuredAwsClientConfig } from './adapters/aws-client-config.ts';
import { DynamoAccountStore } from './adapters/dynamodb/account-store.ts';
import { createDocumentClient } from './adapters/dynamodb/client.ts';
import { DynamoCollectionStore } from './adapters/dynamodb/collection-store.ts';
import { DynamoNoteStore } from './adapters/dynamodb/note-store.ts';
import { DynamoSearchIndex } from './adapters/dynamodb/search-index.ts';
import { S3BlobStore } from './adapters/s3/blob-store.ts';
import { SqsWorkQueue } from './adapters/sqs/work-queue.ts';
import { pollyLanguages } from './adapters/synthesis/polly-voices.ts';
import { type Config, loadConfig } from './config.ts';
import { CachedAccountStore } from './domain/api-key-cache.ts';
import type { DomainDeps } from './domain/deps.ts';
import type { LanguageSupport } from './domain/languages.ts';
import { recordingTypesFor } from './domain/recording-types.ts';
import { logger } from './logging.ts';
import { traced } from './observability.ts';
import { workerStopSignal } from './worker-stop.ts';

/** What the API handlers use. Speech engines live in worker-services.ts, so API bundles stay small. */
export interface Services extends DomainDeps {
  accounts: CachedAccountStore;
  /** What the configured text engine and speech synthesizer can write and say. */
  languages: LanguageSupport;
  /** The recording content types the configured speech engine reads (submitTranscription refuses others). */
  recordingTypes: readonly string[];
}

let services: Services | undefined;

/** Wires adapters from configuration once per process (a Lambda container reuses them across invocations). */
export function getServices(): Services {
  services ??= createServices(loadConfig());
  return services;
}

export function createServices(config: Config): Services {
  // Traced on Lambda (X-Ray subsegments per AWS call); the tracer is off elsewhere.
  const db = traced(createDocumentClient(configuredAwsClientConfig(config, config.NOTES_DYNAMODB_ENDPOINT)));
  const s3 = traced(new S3Client(configuredAwsClientConfig(config, config.NOTES_S3_ENDPOINT)));
  const sqs = traced(new SQSClient(configuredAwsClientConfig(config, config.NOTES_SQS_ENDPOINT)));
  countAwsCalls(db.middlewareStack, 'dynamodb');
  countAwsCalls(s3.middlewareStack, 's3');
  countAwsCalls(sqs.middlewareStack, 'sqs');
  return {
    // The key check of each request usually reads nothing (src/domain/api-key-cache.ts).
    accounts: new CachedAccountStore(new DynamoAccountStore(db, config.NOTES_TABLE_NAME)),
    notes: new DynamoNoteStore(db, config.NOTES_TABLE_NAME),
    collections: new DynamoCollectionStore(db, config.NOTES_TABLE_NAME),
    blobs: new S3BlobStore(s3, config.NOTES_BUCKET_NAME, config.NOTES_UPLOAD_URL_TTL_SECONDS),
    search: new DynamoSearchIndex(db, config.NOTES_TABLE_NAME),
    queue: new SqsWorkQueue(sqs, config.NOTES_TRANSCRIPTION_QUEUE_URL, config.NOTES_GENERATION_QUEUE_URL),
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

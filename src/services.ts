import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoAccountStore } from './adapters/dynamodb/account-store.ts';
import { createDocumentClient } from './adapters/dynamodb/client.ts';
import { DynamoNoteStore } from './adapters/dynamodb/note-store.ts';
import { S3BlobStore } from './adapters/s3/blob-store.ts';
import { PocketsphinxSpeechToText } from './adapters/speech/pocketsphinx.ts';
import { SqsWorkQueue } from './adapters/sqs/work-queue.ts';
import { type Config, loadConfig } from './config.ts';
import type { WorkerDeps } from './domain/transcription-worker.ts';
import type { AccountStore } from './ports/account-store.ts';

export interface Services extends WorkerDeps {
  accounts: AccountStore;
}

let services: Services | undefined;

/** Wires adapters from configuration once per process (a Lambda container reuses them across invocations). */
export function getServices(): Services {
  services ??= createServices(loadConfig());
  return services;
}

export function createServices(config: Config): Services {
  // Local stand-ins accept any credentials; on AWS the SDK's default chain supplies the role's.
  const local = { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const db = createDocumentClient({
    region: config.AWS_REGION,
    ...(config.NOTES_DYNAMODB_ENDPOINT ? { endpoint: config.NOTES_DYNAMODB_ENDPOINT, ...local } : {}),
  });
  const s3 = new S3Client({
    region: config.AWS_REGION,
    // Checksums only when required: s3rver and presigned browser/curl uploads break otherwise (DESIGN.md 7).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(config.NOTES_S3_ENDPOINT
      ? { endpoint: config.NOTES_S3_ENDPOINT, forcePathStyle: true, ...local }
      : {}),
  });
  const sqs = new SQSClient({
    region: config.AWS_REGION,
    ...(config.NOTES_SQS_ENDPOINT ? { endpoint: config.NOTES_SQS_ENDPOINT, ...local } : {}),
  });
  return {
    accounts: new DynamoAccountStore(db, config.NOTES_TABLE_NAME),
    notes: new DynamoNoteStore(db, config.NOTES_TABLE_NAME),
    blobs: new S3BlobStore(s3, config.NOTES_BUCKET_NAME, config.NOTES_UPLOAD_URL_TTL_SECONDS),
    queue: new SqsWorkQueue(sqs, config.NOTES_TRANSCRIPTION_QUEUE_URL),
    speech: new PocketsphinxSpeechToText({
      ffmpegPath: config.NOTES_FFMPEG_PATH,
      pocketsphinxPath: config.NOTES_POCKETSPHINX_PATH,
    }),
    engineName: 'local-pocketsphinx',
    language: 'en-US',
    now: Date.now,
  };
}

import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import { awsClientConfig } from './adapters/aws-client-config.ts';
import { DynamoAccountStore } from './adapters/dynamodb/account-store.ts';
import { createDocumentClient } from './adapters/dynamodb/client.ts';
import { DynamoNoteStore } from './adapters/dynamodb/note-store.ts';
import { S3BlobStore } from './adapters/s3/blob-store.ts';
import { PocketsphinxSpeechToText } from './adapters/speech/pocketsphinx.ts';
import { SqsWorkQueue } from './adapters/sqs/work-queue.ts';
import { TranscribeSpeechToText } from './adapters/transcribe/transcribe-speech-to-text.ts';
import { type Config, loadConfig } from './config.ts';
import type { WorkerDeps } from './domain/transcription-worker.ts';
import { tracer } from './observability.ts';
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
  const region = config.AWS_REGION;
  // Traced on Lambda (X-Ray subsegments per AWS call); the tracer is off elsewhere.
  const db = tracer.captureAWSv3Client(
    createDocumentClient(awsClientConfig(region, config.NOTES_DYNAMODB_ENDPOINT)),
  );
  const s3 = tracer.captureAWSv3Client(new S3Client(awsClientConfig(region, config.NOTES_S3_ENDPOINT)));
  const sqs = tracer.captureAWSv3Client(new SQSClient(awsClientConfig(region, config.NOTES_SQS_ENDPOINT)));
  const blobs = new S3BlobStore(s3, config.NOTES_BUCKET_NAME, config.NOTES_UPLOAD_URL_TTL_SECONDS);
  return {
    accounts: new DynamoAccountStore(db, config.NOTES_TABLE_NAME),
    notes: new DynamoNoteStore(db, config.NOTES_TABLE_NAME),
    blobs,
    queue: new SqsWorkQueue(sqs, config.NOTES_TRANSCRIPTION_QUEUE_URL),
    ...speechEngine(config, blobs),
    now: Date.now,
  };
}

function speechEngine(
  config: Config,
  blobs: S3BlobStore,
): Pick<Services, 'speech' | 'engineName' | 'language'> {
  if (config.NOTES_SPEECH_ENGINE === 'transcribe') {
    return {
      speech: new TranscribeSpeechToText(
        tracer.captureAWSv3Client(new TranscribeClient({ region: config.AWS_REGION })),
        blobs,
        {
          bucket: config.NOTES_BUCKET_NAME,
          jobPrefix: config.NOTES_TRANSCRIBE_JOB_PREFIX,
          languageCode: config.NOTES_TRANSCRIBE_LANGUAGE_CODE,
        },
      ),
      engineName: 'amazon-transcribe',
      language: config.NOTES_TRANSCRIBE_LANGUAGE_CODE,
    };
  }
  return {
    speech: new PocketsphinxSpeechToText({
      ffmpegPath: config.NOTES_FFMPEG_PATH,
      pocketsphinxPath: config.NOTES_POCKETSPHINX_PATH,
    }),
    engineName: 'local-pocketsphinx',
    language: 'en-US',
  };
}

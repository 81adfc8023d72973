import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { expect } from 'vitest';
import { localAwsClientConfig } from '../../../src/adapters/aws-client-config.ts';
import { type Emulators, startEmulators } from '../../../src/local/emulators.ts';
import { lambdaContext } from '../../../src/local/lambda-context.ts';
import { apiRoutes } from '../../../src/routes.ts';
import { type BedrockStandIn, startBedrockStandIn } from '../../support/bedrock-stand-in.ts';
import {
  type DeployedFunction,
  deployedFunctions,
  sharedCloudAssembly,
} from '../../support/cloud-assembly.ts';
import { speechFixture } from '../../support/fixtures.ts';
import { ensureLambdaNode } from '../../support/node22.ts';
import type { UploadTarget } from '../../support/transcribe.ts';
import { httpApiEvent, sqsEvent, transcribeJobStateChange } from './aws-events.ts';
import { comparable } from './compare.ts';
import { IsolatedBundle, resultOf, stackEnvironment } from './isolated-bundle.ts';
import { type KmsStandIn, startKmsStandIn } from './kms-stand-in.ts';
import { type PollyStandIn, startPollyStandIn } from './polly-stand-in.ts';
import { startedJobs, startTranscribeStandIn, type TranscribeStandIn } from './transcribe-stand-in.ts';

const TRANSCRIBE_OUTPUTS = resolve(import.meta.dirname, '..', '..', 'fixtures', 'transcribe');
type Handler = (event: unknown, context: Context) => Promise<unknown>;
type RestOperation = keyof typeof apiRoutes;

/**
 * What the stack's API functions get as references: the API's URL, the token key (answered by the
 * KMS stand-in), the Cognito issuer and its app client, the web app's CloudFront origin. A test that
 * signs in replaces the URL and the issuer by its own servers'.
 */
export interface PublicValues {
  NOTES_PUBLIC_URL: string;
  NOTES_WEB_APP_URL: string;
  NOTES_OAUTH_KMS_KEY_ID: string;
  NOTES_OIDC_ISSUER: string;
  NOTES_OIDC_CLIENT_ID: string;
}

/** Stands for the stack's Transcribe data access role (a GetAtt in the template): job queueing on. */
export const TRANSCRIBE_DATA_ACCESS_ROLE_ARN =
  'arn:aws:iam::111122223333:role/notes-dev-TranscribeDataAccessRole';

export const EXAMPLE_PUBLIC_VALUES: PublicValues = {
  NOTES_PUBLIC_URL: 'https://abc123.execute-api.us-east-1.amazonaws.com',
  NOTES_WEB_APP_URL: 'https://d111111abcdef8.cloudfront.net',
  NOTES_OAUTH_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  NOTES_OIDC_ISSUER: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_example',
  NOTES_OIDC_CLIENT_ID: 'example-client-id',
};

/**
 * The deployed stack, run here: the cloud assembly synthesised with bundling, each function's asset
 * invoked alone by Node 22 (Lambda's runtime) with the events AWS sends, against the project's
 * DynamoDB/S3/SQS emulators and stand-ins for Transcribe, Bedrock (HTTP/2), Polly (HTTP/2) and KMS.
 * The source handlers run in this process against the same stand-ins, so each step can be run both
 * ways and compared.
 */
export class Deployment {
  /** What the bundles wrote to stdout and stderr (CloudWatch Logs on AWS), for the log hygiene check. */
  readonly logs: string[] = [];
  private readonly bundles = new Map<string, IsolatedBundle>();

  private constructor(
    private readonly dataDir: string,
    private readonly nodeBinary: string,
    readonly functions: Map<string, DeployedFunction>,
    readonly emulators: Emulators,
    readonly transcribe: TranscribeStandIn,
    readonly bedrock: BedrockStandIn,
    readonly polly: PollyStandIn,
    readonly kms: KmsStandIn,
    public publicValues: PublicValues,
  ) {}

  static async start(publicValues: PublicValues = EXAMPLE_PUBLIC_VALUES): Promise<Deployment> {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-deployed-data-'));
    const [nodeBinary, assembly] = await Promise.all([ensureLambdaNode(), sharedCloudAssembly()]);
    const emulators = await startEmulators({
      dataDir,
      storagePort: 0,
      queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
      log: () => undefined,
    });
    const [transcribe, bedrock, polly, kms] = await Promise.all([
      startTranscribeStandIn(),
      startBedrockStandIn(),
      startPollyStandIn(),
      startKmsStandIn(),
    ]);
    const deployment = new Deployment(
      dataDir,
      nodeBinary,
      deployedFunctions(assembly.outDir),
      emulators,
      transcribe,
      bedrock,
      polly,
      kms,
      publicValues,
    );
    // The source handlers read the same configuration from this process's environment (the public
    // functions' environment is the shared one plus the OAuth settings).
    Object.assign(process.env, deployment.environmentOf('oauthMetadata'), {
      NOTES_WORK_DIR: join(dataDir, 'work'),
    });
    return deployment;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.bundles.values()].map((bundle) => bundle.dispose()));
    await Promise.all([this.transcribe.close(), this.bedrock.close(), this.polly.close(), this.kms.close()]);
    await this.emulators.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  function(name: string): DeployedFunction {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`no function ${name} in the cloud assembly`);
    return fn;
  }

  /** The function's environment as the template sets it, its references wired to the stand-ins. */
  environmentOf(name: string): Record<string, string> {
    const fn = this.function(name);
    const { credentials, endpoints } = this.emulators;
    const references = {
      NOTES_TABLE_NAME: this.emulators.tableName,
      NOTES_BUCKET_NAME: this.emulators.bucketName,
      NOTES_TRANSCRIPTION_QUEUE_URL: this.emulators.queueUrls.transcription,
      NOTES_GENERATION_QUEUE_URL: this.emulators.queueUrls.generation,
      NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN: TRANSCRIBE_DATA_ACCESS_ROLE_ARN,
      ...this.publicValues,
    };
    return {
      ...stackEnvironment(fn, references),
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      // The execution role's credentials on Lambda; here the stand-ins' own.
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      NOTES_DYNAMODB_ENDPOINT: endpoints.dynamodb,
      NOTES_S3_ENDPOINT: endpoints.s3,
      NOTES_SQS_ENDPOINT: endpoints.sqs,
      NOTES_LOCAL_ACCESS_KEY_ID: credentials.accessKeyId,
      NOTES_LOCAL_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      // The SDK's own per-service endpoint settings: no code path of ours differs for the stand-ins.
      AWS_ENDPOINT_URL_TRANSCRIBE: this.transcribe.baseUrl,
      AWS_ENDPOINT_URL_POLLY: this.polly.endpoint,
      AWS_ENDPOINT_URL_KMS: this.kms.baseUrl,
      NOTES_BEDROCK_ENDPOINT: this.bedrock.endpoint,
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    };
  }

  async bundle(name: string): Promise<IsolatedBundle> {
    const existing = this.bundles.get(name);
    if (existing) return existing;
    const bundle = await IsolatedBundle.copy(this.function(name), this.nodeBinary);
    this.bundles.set(name, bundle);
    return bundle;
  }

  /** `environment` adds to (or overrides) the function's, e.g. metrics printed as Lambda prints them. */
  async viaBundle(name: string, event: unknown, environment: Record<string, string> = {}): Promise<unknown> {
    const outcome = await (await this.bundle(name)).invoke(event, {
      ...this.environmentOf(name),
      ...environment,
    });
    this.logs.push(outcome.logs);
    return resultOf(outcome, `bundle ${name}`);
  }

  async viaSource(name: string, event: unknown): Promise<unknown> {
    const { handler } = (await import(`../../../functions/${name}.ts`)) as { handler: Handler };
    // Through JSON, as the bundle's result crossed a process boundary.
    const result = await handler(event, lambdaContext(name, randomUUID()));
    return JSON.parse(JSON.stringify(result ?? null));
  }

  /**
   * Runs `build(note)` through the bundle for one note and through the source for the other: the two
   * results must be the same but for the note's identity, times and signatures.
   */
  async bothWays(
    name: string,
    build: (noteId: string) => unknown | Promise<unknown>,
    [forBundle, forSource]: readonly [string, string],
  ): Promise<{ bundled: unknown; source: unknown }> {
    const bundled = await this.viaBundle(name, await build(forBundle));
    const source = await this.viaSource(name, await build(forSource));
    expect(comparable(bundled, forBundle), `${name}: the bundle's result differs from the source's`).toEqual(
      comparable(source, forSource),
    );
    return { bundled, source };
  }

  /** Submits a recording for both notes and uploads its bytes to the presigned URLs. */
  async submitAndUpload(apiKey: string, notes: readonly [string, string]) {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const audio = await readFile(file);
    const submitted = await this.bothWays(
      'submitTranscription',
      (note) =>
        rest(apiKey, 'submitTranscription', note, {
          title: 'Deployed',
          content_type: contentType,
          size_bytes: audio.length,
        }),
      notes,
    );
    for (const result of [submitted.bundled, submitted.source]) {
      const upload = JSON.parse((result as { body: string }).body).upload as UploadTarget;
      const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: audio });
      expect(put.status).toBe(200);
    }
    return submitted;
  }

  /**
   * Hands the upload events to the uploads worker (each note's job becomes `queued` and its
   * transcription is requested), then the requests to the transcription worker: one Transcribe job
   * started per note.
   */
  async startTranscriptions(notes: readonly [string, string]) {
    const uploads = await this.receiveMessages(this.emulators.queueUrls.uploads, 2);
    const taken = await this.bothWays(
      'uploadReceived',
      (note) => sqsEvent([messageFor(uploads, note)], this.emulators.queueArns.uploads),
      notes,
    );
    expect(taken.bundled).toEqual({ batchItemFailures: [] });
    const requests = await this.receiveMessages(this.emulators.queueUrls.transcription, 2);
    const worker = await this.bothWays(
      'transcriptionWorker',
      (note) => sqsEvent([messageFor(requests, note)], this.emulators.queueArns.transcription),
      notes,
    );
    expect(worker.bundled).toEqual({ batchItemFailures: [] });
  }

  /** The StartTranscriptionJob request made for `note`. */
  transcribeJobOf(note: string): Record<string, unknown> {
    const job = startedJobs(this.transcribe).find((started) =>
      String(started.TranscriptionJobName).includes(note),
    );
    if (!job) throw new Error(`no Transcribe job was started for note ${note}`);
    return job;
  }

  /**
   * What Amazon Transcribe does when the notes' jobs end: the output document (a fixture in AWS's
   * shape) goes where each request said, then EventBridge's state change reaches
   * transcriptionCompleted.
   */
  async completeTranscriptions(notes: readonly [string, string], outputFixture = 'two-speakers.json') {
    const output = await readFile(join(TRANSCRIBE_OUTPUTS, outputFixture), 'utf8');
    const s3 = new S3Client(localAwsClientConfig(this.emulators.endpoints.s3, this.emulators.credentials));
    for (const note of notes) {
      const job = this.transcribeJobOf(note);
      await s3.send(
        new PutObjectCommand({
          Bucket: String(job.OutputBucketName),
          Key: String(job.OutputKey),
          Body: output,
        }),
      );
    }
    s3.destroy();
    const completed = await this.bothWays(
      'transcriptionCompleted',
      (note) =>
        transcribeJobStateChange(String(this.transcribeJobOf(note).TranscriptionJobName), 'COMPLETED'),
      notes,
    );
    expect(completed.bundled).toBeNull();
  }

  /** Receives until `count` messages are in hand (S3 sends its events just after the upload). */
  async receiveMessages(queueUrl: string, count: number): Promise<Message[]> {
    const sqs = new SQSClient(localAwsClientConfig(this.emulators.endpoints.sqs, this.emulators.credentials));
    const messages: Message[] = [];
    const deadline = Date.now() + 20_000;
    while (messages.length < count && Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      messages.push(...Messages);
    }
    sqs.destroy();
    return messages;
  }
}

/** A REST operation's request for one note (`more`: the route's other path parameters). */
export function rest(
  apiKey: string,
  operationId: RestOperation,
  noteId: string,
  body?: unknown,
  more: Record<string, string> = {},
) {
  const route = apiRoutes[operationId];
  return httpApiEvent({
    method: route.method,
    route: route.path,
    pathParameters: route.path.includes('{note_id}') ? { note_id: noteId, ...more } : {},
    apiKey,
    ...(body === undefined ? {} : { body }),
  });
}

export function messageFor(messages: Message[], note: string): Message {
  const message = messages.find((m) => m.Body?.includes(note));
  if (!message) throw new Error(`no message for note ${note}`);
  return message;
}

/** A handler result's JSON body. */
export function bodyOf<T = Record<string, unknown>>(result: unknown): T {
  return JSON.parse((result as { body: string }).body) as T;
}

/** The bundles logged (structured, at INFO) and none of `secrets`, the stand-ins' key or a bearer header. */
export function expectCleanLogs(deployment: Deployment, secrets: string[]): void {
  const logs = deployment.logs.join('\n');
  expect(logs).toContain('"level":"INFO"');
  for (const secret of [...secrets, deployment.emulators.credentials.secretAccessKey, 'Bearer ']) {
    expect(logs).not.toContain(secret);
  }
}

/**
 * The deployed artifacts, run: the stack is synthesised with bundling, each function's asset is
 * copied alone into a temporary folder and invoked there by Node 22 (Lambda's runtime) with the
 * events AWS sends, against the project's local stand-ins. Every step runs twice, once through the
 * bundle (note A) and once through the source handler in this process (note B), and the results
 * must be the same but for the note's identity, times and signatures.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { type Emulators, startEmulators } from '../../src/local/emulators.ts';
import { lambdaContext } from '../../src/local/lambda-context.ts';
import { apiRoutes, eventWorkers, publicRoutes, queueWorkers } from '../../src/routes.ts';
import { type BedrockStandIn, type ConverseReply, startBedrockStandIn } from '../support/bedrock-stand-in.ts';
import { speechFixture } from '../support/fixtures.ts';
import type { UploadTarget } from '../support/transcribe.ts';
import { httpApiEvent, sqsEvent, transcribeJobStateChange } from './support/aws-events.ts';
import {
  type DeployedFunction,
  deployedFunctions,
  synthesizeWithBundling,
} from './support/cloud-assembly.ts';
import { comparable } from './support/compare.ts';
import { IsolatedBundle, resultOf, stackEnvironment } from './support/isolated-bundle.ts';
import { type KmsStandIn, startKmsStandIn } from './support/kms-stand-in.ts';
import { ensureLambdaNode } from './support/node22.ts';
import {
  startedJobs,
  startTranscribeStandIn,
  type TranscribeStandIn,
} from './support/transcribe-stand-in.ts';

const TRANSCRIBE_OUTPUTS = resolve(import.meta.dirname, '..', 'fixtures', 'transcribe');
type Handler = (event: unknown, context: Context) => Promise<unknown>;

let outDir: string;
let dataDir: string;
let nodeBinary: string;
let functions: Map<string, DeployedFunction>;
let emulators: Emulators;
let transcribe: TranscribeStandIn;
let bedrock: BedrockStandIn;
let kms: KmsStandIn;
let apiKey: string;
const bundles = new Map<string, IsolatedBundle>();

/** The stand-ins' values for what the template gives as references, and what points the SDK at them. */
function localWiring(): { values: Record<string, string>; added: Record<string, string> } {
  const { credentials, endpoints } = emulators;
  return {
    values: {
      NOTES_TABLE_NAME: emulators.tableName,
      NOTES_BUCKET_NAME: emulators.bucketName,
      NOTES_TRANSCRIPTION_QUEUE_URL: emulators.queueUrls.transcription,
      NOTES_GENERATION_QUEUE_URL: emulators.queueUrls.generation,
    },
    added: {
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
      // The SDK's own per-service endpoint setting: no code path of ours differs for the stand-in.
      AWS_ENDPOINT_URL_TRANSCRIBE: transcribe.baseUrl,
      NOTES_BEDROCK_ENDPOINT: bedrock.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.baseUrl,
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  };
}

/**
 * The MCP and OAuth functions' references: the API's URL, the token key (answered by the KMS
 * stand-in), the Cognito issuer and client. No Cognito stand-in answers yet: only the functions
 * that do not contact it (the metadata) are invoked; the others are loaded.
 */
const PUBLIC_FUNCTION_VALUES = {
  NOTES_PUBLIC_URL: 'https://abc123.execute-api.us-east-1.amazonaws.com',
  NOTES_OAUTH_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  NOTES_OIDC_ISSUER: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_example',
  NOTES_OIDC_CLIENT_ID: 'example-client-id',
};

function environmentOf(name: string): Record<string, string> {
  const fn = functions.get(name);
  if (!fn) throw new Error(`no function ${name} in the cloud assembly`);
  const { values, added } = localWiring();
  return {
    ...stackEnvironment(fn, { ...values, ...PUBLIC_FUNCTION_VALUES }),
    ...added,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
  };
}

async function bundleOf(name: string): Promise<IsolatedBundle> {
  const existing = bundles.get(name);
  if (existing) return existing;
  const fn = functions.get(name);
  if (!fn) throw new Error(`no function ${name} in the cloud assembly`);
  const bundle = await IsolatedBundle.copy(fn, nodeBinary);
  bundles.set(name, bundle);
  return bundle;
}

/** What the bundles wrote to stdout and stderr (CloudWatch Logs on AWS), for the log hygiene check. */
const bundleLogs: string[] = [];

async function viaBundle(name: string, event: unknown): Promise<unknown> {
  const bundle = await bundleOf(name);
  const outcome = await bundle.invoke(event, environmentOf(name));
  bundleLogs.push(outcome.logs);
  return resultOf(outcome, `bundle ${name}`);
}

async function viaSource(name: string, event: unknown): Promise<unknown> {
  const { handler } = (await import(`../../functions/${name}.ts`)) as { handler: Handler };
  // Through JSON, as the bundle's result crossed a process boundary.
  const result = await handler(event, lambdaContext(name, randomUUID()));
  return JSON.parse(JSON.stringify(result ?? null));
}

const noteA = randomUUID();
const noteB = randomUUID();

/** Runs `build(note)` through the bundle for one note and the source for another; both must agree. */
async function bothWays(
  name: string,
  build: (noteId: string) => unknown | Promise<unknown>,
  [forBundle, forSource]: readonly [string, string] = [noteA, noteB],
) {
  const bundled = await viaBundle(name, await build(forBundle));
  const source = await viaSource(name, await build(forSource));
  expect(comparable(bundled, forBundle), `${name}: the bundle's result differs from the source's`).toEqual(
    comparable(source, forSource),
  );
  return { bundled, source };
}

/** A REST operation's request for one note (`more`: the route's other path parameters). */
const rest = (
  operationId: keyof typeof apiRoutes,
  noteId: string,
  body?: unknown,
  more: Record<string, string> = {},
) =>
  httpApiEvent({
    method: apiRoutes[operationId].method,
    route: apiRoutes[operationId].path,
    pathParameters: apiRoutes[operationId].path.includes('{note_id}') ? { note_id: noteId, ...more } : {},
    apiKey,
    ...(body === undefined ? {} : { body }),
  });

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'notes-deployed-assembly-'));
  dataDir = await mkdtemp(join(tmpdir(), 'notes-deployed-data-'));
  [nodeBinary] = await Promise.all([ensureLambdaNode(), synthesizeWithBundling(outDir)]);
  functions = deployedFunctions(outDir);
  emulators = await startEmulators({
    dataDir,
    storagePort: 0,
    queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
    log: () => undefined,
  });
  transcribe = await startTranscribeStandIn();
  bedrock = await startBedrockStandIn();
  kms = await startKmsStandIn();
  // The source handlers read the same configuration from this process's environment.
  // (The public functions' environment is the shared one plus the OAuth settings.)
  Object.assign(process.env, environmentOf('oauthMetadata'), {
    NOTES_WORK_DIR: join(dataDir, 'work'),
  });
  const { getServices } = await import('../../src/services.ts');
  const { createAccount } = await import('../../src/domain/accounts.ts');
  apiKey = (await createAccount(getServices().accounts, 'deployed-artifacts')).api_key;
}, 300_000);

afterAll(async () => {
  await Promise.all([...bundles.values()].map((bundle) => bundle.dispose()));
  await transcribe?.close();
  await bedrock?.close();
  await kms?.close();
  await emulators?.stop();
  await rm(outDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('the deployed bundles on Node 22', () => {
  it('the cloud assembly has one nodejs22.x function per route and worker, each with its own asset', () => {
    const expected = [
      ...Object.keys(apiRoutes),
      ...Object.keys(publicRoutes),
      ...Object.keys(queueWorkers),
      ...Object.keys(eventWorkers),
    ].sort();
    expect([...functions.keys()].sort()).toEqual(expected);
    for (const fn of functions.values()) {
      expect([fn.name, fn.runtime, fn.handler]).toEqual([fn.name, 'nodejs22.x', 'index.handler']);
    }
  });

  it('every bundle loads from a folder holding only its asset and exports a handler', async () => {
    const loaded: Record<string, unknown> = {};
    for (const name of functions.keys()) {
      const bundle = await bundleOf(name);
      loaded[name] = resultOf(await bundle.load(environmentOf(name)), `loading ${name}`);
    }
    expect(loaded).toEqual(Object.fromEntries([...functions.keys()].map((name) => [name, 'function'])));
  });
});

describe('a recording through the deployed bundles', () => {
  it('REST: the account and an empty list answer as the sources do', async () => {
    const account = await bothWays('getCurrentAccount', (note) => rest('getCurrentAccount', note));
    expect(account.bundled).toMatchObject({ statusCode: 200 });
    const list = await bothWays('listNotes', (note) => rest('listNotes', note));
    expect(JSON.parse((list.bundled as { body: string }).body)).toMatchObject({ notes: [] });
  });

  it('REST: submitting a recording answers 202 with a presigned upload, as the source does', async () => {
    const submitted = await submitAndUpload([noteA, noteB]);
    expect(submitted.bundled).toMatchObject({ statusCode: 202 });
  });

  it('the S3 upload event, through SQS, makes the transcription worker start a Transcribe job', async () => {
    const messages = await receiveMessages(emulators.queueUrls.transcription, 2);
    const worker = await bothWays('transcriptionWorker', (note) =>
      sqsEvent([messageFor(messages, note)], emulators.queueArns.transcription),
    );
    expect(worker.bundled).toEqual({ batchItemFailures: [] });
    const jobs = startedJobs(transcribe);
    expect(jobs).toHaveLength(2);
    expect(jobs[0]).toMatchObject({
      Media: {
        MediaFileUri: expect.stringMatching(
          new RegExp(`^s3://${emulators.bucketName}/accounts/.+/notes/${noteA}/audio$`),
        ),
      },
      OutputBucketName: emulators.bucketName,
      Settings: { ShowSpeakerLabels: true },
      LanguageCode: 'en-US',
    });
    // Named by the run: the job's creation time (ms) × 1000 + its attempt (1).
    expect(String(jobs[0]?.TranscriptionJobName)).toMatch(
      new RegExp(`^notes-dev-.+\\.${noteA}\\.\\d{13}001$`),
    );
    const pending = await bothWays('getTranscription', (note) => rest('getTranscription', note));
    expect(pending.bundled).toMatchObject({ statusCode: 202 });
  });

  it('the Transcribe state-change event makes transcriptionCompleted finish the transcript', async () => {
    const output = await readFile(join(TRANSCRIBE_OUTPUTS, 'two-speakers.json'), 'utf8');
    const s3 = new S3Client(localAwsClientConfig(emulators.endpoints.s3, emulators.credentials));
    // What Transcribe does when the job ends: its document goes where the request said.
    for (const job of startedJobs(transcribe)) {
      await s3.send(
        new PutObjectCommand({
          Bucket: String(job.OutputBucketName),
          Key: String(job.OutputKey),
          Body: output,
        }),
      );
    }
    s3.destroy();
    const jobName = (note: string) =>
      String(
        startedJobs(transcribe).find((job) => String(job.TranscriptionJobName).includes(note))
          ?.TranscriptionJobName,
      );
    const completed = await bothWays('transcriptionCompleted', (note) =>
      transcribeJobStateChange(jobName(note), 'COMPLETED'),
    );
    expect(completed.bundled).toBeNull();
    const done = await bothWays('getTranscription', (note) => rest('getTranscription', note));
    expect(done.bundled).toMatchObject({ statusCode: 200 });
    expect((done.bundled as { body: string }).body).toContain('Maria');
    transcript = JSON.parse((done.bundled as { body: string }).body);
  });

  it('Insights: the request queues the work; the generation worker asks Bedrock over HTTP/2 and stores them', async () => {
    const calledBefore = bedrock.calls.length;
    const insights = await generateThroughBundles(
      'generateInsights',
      'getInsights',
      {},
      converseToolUse(transcript),
    );
    const model = String(functions.get('generationWorker')?.environment.NOTES_BEDROCK_MODEL_ID);
    expect(bedrock.calls.length).toBeGreaterThan(calledBefore);
    expect(new Set(bedrock.calls)).toEqual(new Set([`/model/${model}/converse`]));
    expect(insights).toContain('Friday');
  });

  it('Epiphany: the request queues the work; the generation worker stores what Bedrock recorded', async () => {
    const more = { artifact_kind: 'epiphany' };
    const epiphany = await generateThroughBundles(
      'generateNoteArtifact',
      'getNoteArtifact',
      more,
      epiphanyToolUse(transcript),
    );
    expect(epiphany).toContain('An agreed day carries the draft');
  });
});

/**
 * Requests a generation (202), hands the queued messages to the generation worker while Bedrock
 * answers `answer`, and reads the result (200): each step through bundle and source alike.
 * Returns the bundle's stored result body.
 */
async function generateThroughBundles(
  request: 'generateInsights' | 'generateNoteArtifact',
  read: 'getInsights' | 'getNoteArtifact',
  more: Record<string, string>,
  answer: ConverseReply,
): Promise<string> {
  const queued = await bothWays(request, (note) => rest(request, note, {}, more));
  expect(queued.bundled, JSON.stringify(queued.bundled)).toMatchObject({ statusCode: 202 });
  const messages = await receiveMessages(emulators.queueUrls.generation, 2);
  // Enough good answers for however many Converse calls one generation makes.
  bedrock.replies.push(...Array.from({ length: 8 }, () => answer));
  const worker = await bothWays('generationWorker', (note) =>
    sqsEvent([messageFor(messages, note)], emulators.queueArns.generation),
  );
  bedrock.replies.length = 0;
  expect(worker.bundled).toEqual({ batchItemFailures: [] });
  const stored = await bothWays(read, (note) => rest(read, note, undefined, more));
  expect(stored.bundled, JSON.stringify(stored.bundled)).toMatchObject({ statusCode: 200 });
  return (stored.bundled as { body: string }).body;
}

describe('the OAuth metadata through its bundle', () => {
  const metadataPaths = publicRoutes.oauthMetadata.endpoints
    .filter((endpoint) => endpoint.method === 'GET')
    .map((endpoint) => endpoint.path);

  it.each(metadataPaths)('GET %s answers as the source does', async (path) => {
    const event = () => ({
      ...httpApiEvent({ method: 'GET', route: path, apiKey: '' }),
      headers: { accept: 'application/json' },
    });
    const answered = await bothWays('oauthMetadata', event);
    expect(answered.bundled).toMatchObject({ statusCode: 200 });
  });

  it('publishes the KMS key as the token signing key', async () => {
    const event = { ...httpApiEvent({ method: 'GET', route: '/oauth/jwks', apiKey: '' }), headers: {} };
    const { body } = (await viaBundle('oauthMetadata', event)) as { body: string };
    const [key] = (JSON.parse(body) as { keys: Array<Record<string, string>> }).keys;
    const expected = kms.publicKey.export({ format: 'jwk' });
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', x: expected.x, y: expected.y });
    expect(
      kms.received.some((request) => request.headers['x-amz-target'] === 'TrentService.GetPublicKey'),
    ).toBe(true);
  });
});

describe('a recording whose transcription keeps failing', () => {
  const notes = [randomUUID(), randomUUID()] as const;

  it('the dead-letter bundle ends the job as failed when the upload event reaches the dead-letter queue', async () => {
    await submitAndUpload(notes);
    const messages = await receiveMessages(emulators.queueUrls.transcription, 2);
    // The same message, as Lambda delivers it from the dead-letter queue after the last receive.
    const deadLetter = await bothWays(
      'transcriptionDeadLetter',
      (note) => sqsEvent([messageFor(messages, note)], emulators.queueArns.transcriptionDlq),
      notes,
    );
    expect(deadLetter.bundled).toEqual({ batchItemFailures: [] });
    const failed = await bothWays('getTranscription', (note) => rest('getTranscription', note), notes);
    expect(JSON.parse((failed.bundled as { body: string }).body)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/Submit the note again/),
    });
  });
});

describe('what the bundles log', () => {
  it('holds no API key, credentials, bearer header or transcript text', () => {
    const logs = bundleLogs.join('\n');
    expect(logs).toContain('"level":"INFO"');
    for (const secret of [
      apiKey,
      emulators.credentials.secretAccessKey,
      'Bearer ',
      'Maria',
      'budget numbers',
    ]) {
      expect(logs).not.toContain(secret);
    }
  });
});

/** Submits a recording for both notes (bundle, source) and uploads its bytes to the presigned URLs. */
async function submitAndUpload(notes: readonly [string, string]) {
  const { file, contentType } = await speechFixture('slt', 'wav');
  const audio = await readFile(file);
  const submitted = await bothWays(
    'submitTranscription',
    (note) =>
      rest('submitTranscription', note, {
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

/** The completed transcript of note A, which the Insights' citations must point into. */
let transcript: {
  conversation_segments: Array<{ start_ms: number; end_ms: number; text: string }>;
  duration_ms: number;
};

/** A Converse answer in AWS's shape (the body Bedrock Runtime sends): one forced tool call. */
function converseToolCall(name: string, input: unknown): ConverseReply {
  return {
    output: {
      output: {
        message: { role: 'assistant', content: [{ toolUse: { toolUseId: `tooluse_${name}`, name, input } }] },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 900, outputTokens: 200, totalTokens: 1100 },
      metrics: { latencyMs: 1200 },
    },
  };
}

/** Insights citing the transcript's lines, as the forced `record_insights` call. */
function converseToolUse(source: typeof transcript): ConverseReply {
  const [first, ...rest] = source.conversation_segments;
  if (!first) throw new Error('the transcript has no segments to cite');
  const cite = [first.start_ms];
  return converseToolCall('record_insights', {
    summary: {
      text: 'Maria and a colleague confirm Friday and the draft with budget numbers.',
      citations: cite,
    },
    key_points: [
      {
        text: 'The draft and the budget numbers come on Friday.',
        citations: [rest[0]?.start_ms ?? first.start_ms],
      },
    ],
    topics: [{ label: 'Friday meeting', citations: cite }],
    action_items: [
      { text: 'Bring the draft and the budget numbers.', owner: null, due_date: null, citations: cite },
    ],
    decisions: [],
    open_questions: [],
    chapters: [{ title: 'Planning', start_ms: first.start_ms, end_ms: source.duration_ms }],
    speakers: [],
  });
}

/** An Epiphany whose evidence quotes the transcript's first line verbatim, as `record_epiphany`. */
function epiphanyToolUse(source: typeof transcript): ConverseReply {
  const first = source.conversation_segments[0];
  if (!first) throw new Error('the transcript has no segments to quote');
  return converseToolCall('record_epiphany', {
    ideas: [
      {
        title: 'An agreed day carries the draft',
        connection: 'The meeting day is confirmed in the same breath as the draft and the numbers.',
        implication: 'If Friday moves, the draft review moves with it.',
        evidence: [{ start_ms: first.start_ms, quote: first.text }],
      },
    ],
  });
}

function messageFor(messages: Message[], note: string): Message {
  const message = messages.find((m) => m.Body?.includes(note));
  if (!message) throw new Error(`no message for note ${note}`);
  return message;
}

/** Receives until `count` messages are in hand (S3 sends its events just after the upload). */
async function receiveMessages(queueUrl: string, count: number): Promise<Message[]> {
  const sqs = new SQSClient(localAwsClientConfig(emulators.endpoints.sqs, emulators.credentials));
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

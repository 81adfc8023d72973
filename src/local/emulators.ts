/**
 * Stand-ins for the AWS services the handlers use, for the local runtime and the integration tests.
 * They run in a worker thread of their own (src/local/emulators-in-thread.ts), off the API's event
 * loop: there their LevelDB reads, XML and signature checks no longer hold up API requests (under
 * modest mixed traffic, p99 ~1.4 s before; docs/benchmarks.md), and a thread dies with its process,
 * so `kill -9` leaves no emulator holding the database lock or a port. `inProcess` (or a test's
 * `openStagingFile`, a function the thread cannot receive) keeps them on the caller's event loop,
 * for fault tests that patch or inject into them from the test's own code.
 *
 * - DynamoDB: dynalite, persisted (LevelDB) under `<dataDir>/dynamodb`.
 * - S3: s3rver, persisted under `<dataDir>/s3`, on the one port browsers must reach (presigned uploads).
 * - SQS: local-aws-sqs (JSON protocol). It keeps queues and messages in memory only (it has no
 *   persistence option), so messages still queued or in flight when the local runtime stops are lost;
 *   a restart recreates empty queues (the table and the objects do survive).
 *
 * Upload completion is bridged like an S3 -> SQS event notification: an object created under a key
 * ending in `/audio` puts the AWS-shaped S3 event JSON on the `uploads` queue, as on AWS.
 *
 * None of the three checks credentials by itself, so each port is fronted by a Signature V4 check
 * with the runtime's own credentials (made on first start, kept in the data directory): the object
 * store by src/local/storage/storage-front.ts (signatures, presigned URLs, CORS, single-use uploads),
 * dynalite and the queue by src/local/sigv4/json-service-guard.ts. dynalite and the queue listen on
 * 127.0.0.1 whatever `host` says: only this process needs them.
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Event, S3EventRecord } from 'aws-lambda';
import type S3rver from 's3rver';
import { LOCAL_REGION, type LocalCredentials, localAwsClientConfig } from '../adapters/aws-client-config.ts';
import { createTableInput } from '../adapters/dynamodb/table-definition.ts';
import { answerDatabaseWriteFaults } from './database-faults.ts';
import { ensureDatabaseNotInUse } from './database-in-use.ts';
import { startEmulatorsInThread } from './emulators-in-thread.ts';
import { errorLine } from './error-line.ts';
import { ensureLocalCredentials } from './local-credentials.ts';
import { listenerUrl } from './public-addresses.ts';
import { countReceivesAsSqsDoes, type EmulatedQueue } from './queue-visibility-fix.ts';
import { type JsonServiceClient, JsonServiceError, jsonServiceClient } from './sigv4/json-service-client.ts';
import { guardJsonService } from './sigv4/json-service-guard.ts';
import { StartUpProblem } from './start-up-problem.ts';
import { StorageCors } from './storage/cors.ts';
import type { DurableFilesystemStore, OpenStagingFile } from './storage/durable-store.ts';
import { createStorageFront } from './storage/storage-front.ts';
import { rememberTableDescriptions } from './table-descriptions.ts';

export { localAwsClientConfig };

export const LOCAL_TABLE_NAME = 'notes';
export const LOCAL_BUCKET_NAME = 'notes';
export const LOCAL_QUEUE_NAMES = {
  uploads: 'uploads',
  uploadsDlq: 'uploads-dlq',
  transcription: 'transcription',
  transcriptionDlq: 'transcription-dlq',
  generation: 'generation',
  generationDlq: 'generation-dlq',
} as const;

/** Names the bridged notification, as the notification configuration's id would in AWS. */
const UPLOAD_NOTIFICATION_ID = 'recording-uploaded';
const AUDIO_KEY_SUFFIX = '/audio';
const INTERNAL_HOST = '127.0.0.1';

export interface EmulatorOptions {
  dataDir: string;
  /** Port of the object store (the one browsers upload to); 0 picks a free one. */
  storagePort: number;
  /** Interface the object store listens on. */
  host?: string;
  queue: { visibilityTimeoutSeconds: number; maxReceiveCount: number };
  /** One-line operational messages (never message bodies). */
  log?: (line: string) => void;
  /**
   * Browser origins allowed to use the object store besides the service's own (which the runtime
   * adds once its API listens, through `storageCors`). From NOTES_STORAGE_CORS_ORIGINS.
   */
  corsOrigins?: readonly string[];
  /**
   * Opens the object store's staging files; fault tests pass one that fails like a full disk. A
   * function cannot be sent to the emulators' thread: passing one runs the emulators in-process.
   */
  openStagingFile?: OpenStagingFile;
  /**
   * Run the emulators on the caller's event loop instead of their own thread: for tests that patch
   * them from the test's own code (LevelDB's write methods in the full-disk test).
   */
  inProcess?: boolean;
}

export type QueueNames<T> = Record<keyof typeof LOCAL_QUEUE_NAMES, T>;

export interface Emulators {
  endpoints: { dynamodb: string; s3: string; sqs: string };
  tableName: string;
  bucketName: string;
  queueUrls: QueueNames<string>;
  /** Event-source mappings need the ARN as well as the URL. */
  queueArns: QueueNames<string>;
  /** What every request to the three ports must be signed with (from `<dataDir>/local-credentials.json`). */
  credentials: LocalCredentials;
  /** The object store's CORS origins; the runtime adds the API's origin once it is known. */
  storageCors: { allowServiceOrigin(apiUrl: string): Promise<void> };
  /** Stops all three; in-flight requests are cut and queued messages are dropped. */
  stop(): Promise<void>;
}

export function startEmulators(options: EmulatorOptions): Promise<Emulators> {
  return options.inProcess || options.openStagingFile
    ? startEmulatorsHere(options)
    : startEmulatorsInThread(options);
}

/** Starts the emulators on this thread's event loop (the emulators' thread calls it too). */
export async function startEmulatorsHere(options: EmulatorOptions): Promise<Emulators> {
  const { dataDir, host = INTERNAL_HOST, queue } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  // Undo what already started if a later step fails, so a failed start leaves no port or DB lock.
  const cleanups: Array<() => Promise<void>> = [];
  const runCleanups = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  try {
    const dynamodbDir = join(dataDir, 'dynamodb');
    const s3Dir = join(dataDir, 's3');
    await mkdir(dynamodbDir, { recursive: true });
    await mkdir(s3Dir, { recursive: true });
    // The emulators' packages load only where they run (the API's thread, which imports this module
    // for startEmulators, does not need them), and while the database is checked: loading is this
    // thread's work, opening the database the disk's.
    const packages = loadEmulatorPackages();
    packages.catch(() => undefined);
    const [credentials] = await Promise.all([
      ensureLocalCredentials(dataDir, log),
      // First: a database in use means another process serves this data directory, and the object
      // store's start below clears its staging files.
      ensureDatabaseNotInUse(dynamodbDir),
    ]);
    performance.mark('emulators:database-free');
    const { dynalite, createSqsRequestHandler, ...s3rverPackage } = await packages;
    performance.mark('emulators:packages-loaded');

    // A full disk answers the request with an error instead of ending the process.
    cleanups.push(async () => unwatchDiskSpace());
    const unwatchDiskSpace = answerDatabaseWriteFaults(dynamodbDir);
    // Each request no longer re-reads the table's description from LevelDB (table-descriptions.ts).
    rememberTableDescriptions();

    // The three start at once, each checking its table or queues as soon as it listens: a start
    // waits for the slowest of them rather than for all three in a row.
    const [database, storage, queues] = await allStarted([
      startDatabase(dynalite, dynamodbDir, credentials, cleanups),
      startStorage(s3rverPackage, { ...options, host, s3Dir, credentials }, cleanups),
      startQueues(createSqsRequestHandler, queue, credentials, cleanups),
    ]);
    performance.mark('emulators:table-and-queues-checked');

    const bridge = bridgeAudioUploads({
      s3rver: storage.s3rver,
      sqs: queues.client,
      bucketName: LOCAL_BUCKET_NAME,
      queueUrl: queues.urls.uploads,
      log,
    });
    // Runs first on stop (cleanups run in reverse): no upload event is sent to a closed queue.
    cleanups.push(() => bridge.stop());

    let stopping: Promise<void> | undefined;
    return {
      endpoints: { dynamodb: database.endpoint, s3: storage.endpoint, sqs: queues.endpoint },
      tableName: LOCAL_TABLE_NAME,
      bucketName: LOCAL_BUCKET_NAME,
      queueUrls: queues.urls,
      queueArns: queues.arns,
      credentials,
      storageCors: { allowServiceOrigin: async (apiUrl) => storage.cors.allowServiceOrigin(apiUrl) },
      stop: () => {
        stopping ??= runCleanups();
        return stopping;
      },
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}

function loadEmulatorPackages() {
  return import('./emulator-packages.ts');
}

type EmulatorPackages = Awaited<ReturnType<typeof loadEmulatorPackages>>;

/**
 * Waits for every start, then fails with the first failure: a start that fails must not leave the
 * others still starting, their ports and cleanups unknown to the caller's clean-up.
 */
async function allStarted<T extends readonly unknown[]>(
  starts: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** dynalite on its own port, behind the signature check, with the table made if it is missing. */
async function startDatabase(
  dynalite: EmulatorPackages['dynalite'],
  directory: string,
  credentials: LocalCredentials,
  cleanups: Array<() => Promise<void>>,
): Promise<{ endpoint: string }> {
  // createTableMs 0: a table is usable at once, and a crash cannot leave it stuck in CREATING.
  const server = dynalite({ path: directory, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  guardRequests(server, (listener) =>
    guardJsonService(listener, {
      service: 'dynamodb',
      region: LOCAL_REGION,
      credentials,
      presignedUrls: false,
    }),
  );
  const port = await listen(server, 0, INTERNAL_HOST, 'DynamoDB emulator');
  cleanups.push(() => closeServer(server));
  performance.mark('emulators:dynamodb-listening');
  const endpoint = `http://${INTERNAL_HOST}:${port}`;
  await ensureTable(jsonServiceClient('dynamodb', endpoint, credentials), LOCAL_TABLE_NAME);
  performance.mark('emulators:table-checked');
  return { endpoint };
}

/** The object store (s3rver behind the storage front) on the port browsers upload to. */
async function startStorage(
  s3rverPackage: S3rverPackage,
  options: EmulatorOptions & { host: string; s3Dir: string; credentials: LocalCredentials },
  cleanups: Array<() => Promise<void>>,
): Promise<{ s3rver: S3rver; cors: StorageCors; endpoint: string }> {
  const { dataDir, s3Dir, credentials, host } = options;
  const { s3rver, store } = await createS3rver(
    s3rverPackage,
    s3Dir,
    join(dataDir, 's3-staging'),
    credentials,
    options.openStagingFile,
  );
  const cors = new StorageCors(options.corsOrigins);
  const server = createServer(createStorageFront({ s3rver, store, credentials, cors }));
  const port = await listen(server, options.storagePort, host, 'object storage');
  cleanups.push(() => closeServer(server));
  performance.mark('emulators:s3-listening');
  return { s3rver, cors, endpoint: listenerUrl(host, port) };
}

/** The queue emulator on its own port, behind the signature check, with the six queues made. */
async function startQueues(
  createSqsRequestHandler: EmulatorPackages['createSqsRequestHandler'],
  settings: EmulatorOptions['queue'],
  credentials: LocalCredentials,
  cleanups: Array<() => Promise<void>>,
): Promise<{
  client: JsonServiceClient;
  endpoint: string;
  urls: QueueNames<string>;
  arns: QueueNames<string>;
}> {
  // Built from the request handler (not createSqsServer) to see listen errors and own the server.
  const emulator = createSqsRequestHandler({
    port: 0,
    hostname: INTERNAL_HOST,
    region: LOCAL_REGION,
    // Recreating a deleted queue must not take 60 s here.
    emulateQueueCreationLifecycle: false,
  });
  const server = createServer(
    guardJsonService((req, res) => void emulator.requestHandler(req, res), {
      service: 'sqs',
      region: LOCAL_REGION,
      credentials,
      presignedUrls: false,
    }),
  );
  const port = await listen(server, 0, INTERNAL_HOST, 'queue emulator');
  // Queue URLs embed the port, which is only known now.
  emulator.service.PORT = port;
  cleanups.push(async () => {
    await closeServer(server);
    emulator.service.resetAll();
  });
  performance.mark('emulators:sqs-listening');
  const endpoint = `http://${INTERNAL_HOST}:${port}`;
  // Kept: the upload bridge sends its events with it.
  const client = jsonServiceClient('sqs', endpoint, credentials);
  const queueArn = (name: string) =>
    `arn:aws:sqs:${emulator.service.REGION}:${emulator.service.ACCOUNT_ID}:${name}`;
  const queues = await ensureQueues(client, settings, queueArn);
  for (const emulated of emulator.service.Queues) {
    countReceivesAsSqsDoes(emulated as unknown as EmulatedQueue);
  }
  performance.mark('emulators:queues-checked');
  return { client, endpoint, ...queues };
}

type S3rverPackage = Pick<EmulatorPackages, 'S3rverServer' | 's3rverAccounts' | 'DurableFilesystemStore'>;

async function createS3rver(
  { S3rverServer, s3rverAccounts, DurableFilesystemStore }: S3rverPackage,
  directory: string,
  stagingDirectory: string,
  credentials: LocalCredentials,
  openStagingFile: OpenStagingFile | undefined,
): Promise<{ s3rver: S3rver; store: DurableFilesystemStore }> {
  // s3rver rejects access keys it does not know; register the local ones (global and idempotent).
  s3rverAccounts.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const s3rver = new S3rverServer({
    silent: true,
    directory,
    // Path-style only: otherwise any Host that is not an IP or 'localhost' is read as a bucket name.
    vhostBuckets: false,
    configureBuckets: [{ name: LOCAL_BUCKET_NAME }],
  });
  const store = new DurableFilesystemStore(directory, stagingDirectory, openStagingFile);
  s3rver.store = store;
  s3rver.context.store = store;
  await store.prepare();
  await s3rver.configureBuckets();
  // CORS is the front's (StorageCors); a rule older versions saved with the bucket (any origin) goes.
  await store.deleteSubresource(LOCAL_BUCKET_NAME, undefined, 'cors');
  return { s3rver, store };
}

/** Puts `guard` in front of what a server created elsewhere (dynalite) does with each request. */
function guardRequests(server: Server, guard: (listener: RequestListener) => RequestListener): void {
  const [listener, ...others] = server.listeners('request') as RequestListener[];
  if (!listener || others.length > 0) throw new Error('expected exactly one request listener to guard');
  server.removeListener('request', listener);
  server.on('request', guard(listener));
}

/**
 * Described first: on every start but the first the table is there, and one call says so. Made when
 * missing, then waited for (createTableMs 0 makes it ACTIVE at once; the loop is for other settings).
 */
async function ensureTable(client: JsonServiceClient, tableName: string): Promise<void> {
  const status = async () => {
    try {
      const { Table } = await client.call<{ Table?: { TableStatus?: string } }>('DescribeTable', {
        TableName: tableName,
      });
      return Table?.TableStatus;
    } catch (error) {
      if (error instanceof JsonServiceError && error.type === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  };
  if ((await status()) === 'ACTIVE') return;
  try {
    await client.call('CreateTable', createTableInput(tableName));
  } catch (error) {
    if (!(error instanceof JsonServiceError && error.type === 'ResourceInUseException')) throw error;
  }
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await status()) === 'ACTIVE') return;
    await sleep(25);
  }
  throw new Error(`DynamoDB emulator: table ${tableName} did not become ACTIVE`);
}

/**
 * The emulator keeps its queues in memory: every start makes all six anew, each with its attributes
 * in the one CreateQueue call, the dead-letter queues first (a redrive policy must name an existing
 * queue). `arnOf` is the emulator's own ARN for a name, so no call asks for it.
 */
async function ensureQueues(
  client: JsonServiceClient,
  { visibilityTimeoutSeconds, maxReceiveCount }: EmulatorOptions['queue'],
  arnOf: (name: string) => string,
): Promise<{ urls: QueueNames<string>; arns: QueueNames<string> }> {
  const create = async (name: string, attributes?: Record<string, string>) => {
    const { QueueUrl: url } = await client.call<{ QueueUrl?: string }>('CreateQueue', {
      QueueName: name,
      ...(attributes ? { Attributes: attributes } : {}),
    });
    if (!url) throw new Error(`queue emulator: CreateQueue ${name} returned no URL`);
    return url;
  };
  // Each work queue hands a message to its dead-letter queue after maxReceiveCount receives.
  const withDeadLetter = async (name: string, dlqName: string) => {
    const dlq = await create(dlqName);
    const main = await create(name, {
      VisibilityTimeout: String(visibilityTimeoutSeconds),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf(dlqName), maxReceiveCount }),
    });
    return { main, dlq };
  };
  // The three pairs are independent: made at once, so a start waits for one pair's round trips.
  const [uploads, transcription, generation] = await Promise.all([
    withDeadLetter(LOCAL_QUEUE_NAMES.uploads, LOCAL_QUEUE_NAMES.uploadsDlq),
    withDeadLetter(LOCAL_QUEUE_NAMES.transcription, LOCAL_QUEUE_NAMES.transcriptionDlq),
    withDeadLetter(LOCAL_QUEUE_NAMES.generation, LOCAL_QUEUE_NAMES.generationDlq),
  ]);
  const urls: QueueNames<string> = {
    uploads: uploads.main,
    uploadsDlq: uploads.dlq,
    transcription: transcription.main,
    transcriptionDlq: transcription.dlq,
    generation: generation.main,
    generationDlq: generation.dlq,
  };
  const arns = Object.fromEntries(
    Object.entries(LOCAL_QUEUE_NAMES).map(([key, name]) => [key, arnOf(name)]),
  ) as QueueNames<string>;
  return { urls, arns };
}

interface BridgeOptions {
  s3rver: S3rver;
  sqs: JsonServiceClient;
  bucketName: string;
  queueUrl: string;
  log: (line: string) => void;
}

/**
 * The local S3 -> SQS event notification (filter: ObjectCreated:*, suffix `/audio`). Sending is
 * asynchronous, as in AWS: the message can arrive just after the upload's response.
 */
function bridgeAudioUploads({ s3rver, sqs, bucketName, queueUrl, log }: BridgeOptions): {
  stop(): Promise<void>;
} {
  const pending = new Set<Promise<void>>();
  const onEvent = (event: S3rver.S3rverEvent) => {
    for (const record of event.Records) {
      const notification = toAwsS3Notification(record, bucketName);
      if (!notification) continue;
      const sending = sqs
        .call('SendMessage', { QueueUrl: queueUrl, MessageBody: JSON.stringify(notification) })
        .then(
          () => undefined,
          (error: unknown) =>
            log(
              `local s3 events: could not enqueue the upload event for bucket ${bucketName}: ${errorLine(error)}`,
            ),
        )
        .finally(() => pending.delete(sending));
      pending.add(sending);
    }
  };
  s3rver.on('event', onEvent);
  return {
    async stop() {
      s3rver.off('event', onEvent);
      await Promise.all([...pending]);
    },
  };
}

type S3rverRecord = S3rver.S3rverEvent['Records'][number];

/**
 * Rewrites s3rver's record into what AWS delivers: s3rver says eventVersion 2.0, a malformed bucket
 * ARN ('arn:aws:s3: : :name') and a decoded key, where AWS sends 2.1, 'arn:aws:s3:::name' and a
 * URL-encoded key. Copies carry no eTag in s3rver and are not part of the upload flow: skipped.
 */
function toAwsS3Notification(record: S3rverRecord, bucketName: string): S3Event | null {
  const { bucket, object } = record.s3;
  if (!record.eventName.startsWith('ObjectCreated:') || bucket.name !== bucketName) return null;
  if (!object.key.endsWith(AUDIO_KEY_SUFFIX) || object.size === undefined || object.eTag === undefined) {
    return null;
  }
  const awsRecord: S3EventRecord = {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: LOCAL_REGION,
    eventTime: record.eventTime,
    eventName: record.eventName,
    userIdentity: { principalId: record.userIdentity.principalId },
    requestParameters: { sourceIPAddress: record.requestParameters.sourceIPAddress },
    responseElements: {
      'x-amz-request-id': record.responseElements['x-amz-request-id'],
      'x-amz-id-2': record.responseElements['x-amz-id-2'],
    },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: UPLOAD_NOTIFICATION_ID,
      bucket: {
        name: bucket.name,
        ownerIdentity: { principalId: bucket.ownerIdentity.principalId },
        arn: `arn:aws:s3:::${bucket.name}`,
      },
      object: {
        key: encodeS3EventKey(object.key),
        size: object.size,
        eTag: object.eTag,
        sequencer: object.sequencer,
      },
    },
  };
  return { Records: [awsRecord] };
}

/**
 * S3 event keys are form-URL-encoded (space as '+', '+' as %2B) with '/' left as is; consumers
 * decode with decodeURIComponent(key.replace(/\+/g, ' ')).
 */
export function encodeS3EventKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replace(/%20/g, '+'),
    )
    .join('/');
}

function listen(server: Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      // A port in use is the person's to free or change: said in a sentence, without a stack trace.
      reject(
        error.code === 'EADDRINUSE'
          ? new StartUpProblem(
              `${what} could not listen: port ${port} on ${host} is already in use (another notes service, or another program): stop it, or choose other ports (PORT, NOTES_STORAGE_PORT)`,
            )
          : new Error(`${what} could not listen: ${error.message}`, { cause: error }),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server without waiting for keep-alive sockets or long polls to end by themselves. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

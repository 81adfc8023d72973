import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, resolve, sep } from 'node:path';
import { buildWebAppAsync } from '../../web/build.ts';
import type { DynamoNoteStore } from '../adapters/dynamodb/note-store.ts';
import { loadConfig } from '../config.ts';
import { reconcileJobs } from '../domain/job-reconciliation.ts';
import type { ApiLambdaHandler } from '../http/api-handler.ts';
import { PUBLISHED_DOC_CONTENT_TYPES } from '../published-docs.ts';
import {
  apiRoutes,
  type OperationId,
  type PublicRoute,
  type PublicRouteName,
  publicRoutes,
} from '../routes.ts';
import { getServices } from '../wiring/services.ts';
import { createApiServer, type LocalRoute, type StaticFile } from './api-gateway-adapter.ts';
import type { Emulators, QueueNames } from './emulators.ts';
import { importedOnFirstCall } from './handler-modules.ts';
import { forgetKeysOnRequest } from './key-revocations.ts';
import { ensureLocalAccount, writeOwnerOnly } from './local-account.ts';
import { DEFAULT_LISTEN_HOST, listenerUrl } from './public-addresses.ts';
import { type QueueWorkerSettings, type QueueWorkers, startQueueWorkersHere } from './queue-workers.ts';
import { startQueueWorkersInThread } from './queue-workers-in-thread.ts';
import { healthProbes, localReadinessChecks } from './readiness.ts';
import { startRetentionTimer } from './retention-timer.ts';
import { startRuntimeEmulators } from './runtime-emulators.ts';
import { ensureSigningKey } from './signing-key-file.ts';
import { type SpeechEngineStart, startSpeechEngine } from './speech-engine-start.ts';
import { StartUpProblem } from './start-up-problem.ts';
import { startVoiceModel, type VoiceModelStart } from './voice-model-start.ts';
import { webAppFiles } from './web-app-files.ts';
import { transcriptionConcurrencySetting } from './worker-concurrency.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/** Under the data directory: the workers' temporary files. */
const WORK_DIR = 'work';
const DEFAULT_DRAIN_SECONDS = 10;

export interface LocalRuntimeOptions {
  dataDir: string;
  port: number;
  /** Port of the object store that presigned upload URLs point at; 0 picks a free one. */
  storagePort: number;
  /** Interface the API and the object store listen on (NOTES_LISTEN_HOST; default 127.0.0.1). */
  host?: string;
  /**
   * The API's origin as clients reach it (NOTES_PUBLIC_URL), when it differs from the listening
   * address: the OAuth issuer, the MCP resource and the web app's origin. src/local/public-addresses.ts
   */
  publicUrl?: string;
  /** The object store's origin as clients reach it (NOTES_STORAGE_PUBLIC_URL): presigned URLs point there. */
  storagePublicUrl?: string;
  /** Must exceed the longest transcription, or a message is redelivered while still being worked on. */
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  /** Run the queue workers (default). Fault tests turn them off to play the part of a failing worker first. */
  workers?: boolean;
  /**
   * Transcriptions run at once (default: NOTES_TRANSCRIPTION_CONCURRENCY, else two per core as memory
   * allows; src/local/worker-concurrency.ts). Other workers handle one message at a time.
   */
  transcriptionConcurrency?: number;
  /** How long stop() lets running work finish before returning it to the queue (default 10 s). */
  drainSeconds?: number;
  log?: (line: string) => void;
  /** Browser origins, besides the API's own, allowed to use the object store (NOTES_STORAGE_CORS_ORIGINS). */
  storageCorsOrigins?: readonly string[];
  /**
   * Run the queue workers on this event loop, not their own thread: for tests that swap the workers'
   * engines or wrap their services (getServices() of this thread).
   */
  workersInProcess?: boolean;
  /** Keep the emulators on this event loop, not their own thread: for tests that patch them (emulators.ts). */
  emulatorsInProcess?: boolean;
  /**
   * The emulators, already starting (startRuntimeEmulators with these options): `npm start` starts
   * them before it imports this module. Stopped if the runtime's start fails. Default: started here.
   */
  emulators?: Promise<Emulators>;
}

export interface LocalRuntime {
  apiUrl: string;
  storageUrl: string;
  dataDir: string;
  /** Set only on the first start, when the local account's key was created. */
  newApiKey: string | null;
  info: RuntimeInfo;
  /** The speech engine as the start prepared it (the banner's line, /readyz's `speech`). */
  speech: SpeechEngineStart;
  /** The voice model the diarizer tells speakers apart with (the banner's line, /readyz's `voices`). */
  voices: VoiceModelStart;
  /**
   * Stops taking requests, lets running work finish for the drain time, then stops it (each job goes
   * back to `queued`, resumed on the next start) and shuts the stand-ins down.
   */
  stop(): Promise<void>;
}

/** What the runtime publishes in `<dataDir>/runtime.json` for tools and tests (no secrets). */
export interface RuntimeInfo {
  pid: number;
  api_url: string;
  storage_url: string;
  endpoints: { dynamodb: string; s3: string; sqs: string };
  table_name: string;
  bucket_name: string;
  queue_urls: QueueNames<string>;
  /** Transcriptions this runtime runs at once. */
  transcription_concurrency: number;
}

/**
 * Runs the whole service on this machine: the embedded stand-ins for DynamoDB, S3 and SQS, the same
 * Lambda handlers behind an API Gateway adapter, and the queue workers behind event-source loops.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const log = options.log ?? ((line: string) => console.error(line));
  const dataDir = resolve(options.dataDir);
  let transcriptionConcurrency: number;
  try {
    // Read first: a wrong setting stops the start before anything is opened here.
    transcriptionConcurrency =
      options.transcriptionConcurrency ??
      transcriptionConcurrencySetting(process.env.NOTES_TRANSCRIPTION_CONCURRENCY);
  } catch (error) {
    await stopOnceStarted(options.emulators);
    throw error;
  }
  const emulatorsStarted = options.emulators ?? startRuntimeEmulators({ ...options, log });
  // A start that fails stops what it started, so the caller's process (a test, a bench) keeps no
  // emulator thread, port or database lock.
  const undoOnFailure: Array<() => unknown> = [() => stopOnceStarted(emulatorsStarted)];
  try {
    // Workers' temporary files live here; whatever a killed run left behind goes now.
    const workDir = join(dataDir, WORK_DIR);
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true, mode: 0o700 });

    // esbuild builds the web app in its own process, and the published docs are read, while the
    // emulators start in their thread.
    const webAppBuilt = buildWebAppAsync();
    webAppBuilt.catch(() => undefined);
    const docsRead = publishedDocs();
    docsRead.catch(() => undefined);
    const emulators = await emulatorsStarted;
    performance.mark('runtime:emulators-started');
    // The workers reach the object store at its listening address; browsers and clients at its public one.
    const storageUrl = options.storagePublicUrl ?? emulators.endpoints.s3;
    // The handlers read their configuration from the environment, as on Lambda.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      NOTES_TABLE_NAME: emulators.tableName,
      NOTES_BUCKET_NAME: emulators.bucketName,
      NOTES_TRANSCRIPTION_QUEUE_URL: emulators.queueUrls.transcription,
      NOTES_GENERATION_QUEUE_URL: emulators.queueUrls.generation,
      NOTES_DYNAMODB_ENDPOINT: emulators.endpoints.dynamodb,
      NOTES_S3_ENDPOINT: emulators.endpoints.s3,
      NOTES_SQS_ENDPOINT: emulators.endpoints.sqs,
      NOTES_WORK_DIR: workDir,
      // The data directory's disk can be freed: work that meets it full waits for space.
      NOTES_WAIT_FOR_STORAGE: 'on',
      NOTES_LOCAL_ACCESS_KEY_ID: emulators.credentials.accessKeyId,
      NOTES_LOCAL_SECRET_ACCESS_KEY: emulators.credentials.secretAccessKey,
    });
    if (storageUrl === emulators.endpoints.s3) delete process.env.NOTES_S3_PUBLIC_ENDPOINT;
    else process.env.NOTES_S3_PUBLIC_ENDPOINT = storageUrl;
    const docs = await docsRead;
    performance.mark('runtime:docs-read');
    const webApp = webAppFiles({ storageOrigin: storageUrl, built: await webAppBuilt });
    performance.mark('runtime:web-app-built');
    let started = false;
    const isStarted = () => started;
    // The Whisper model is found or fetched meanwhile; the workers wait for it (or its fallback).
    const speech = startSpeechEngine(log, join(REPO_ROOT, 'models'));
    const voices = startVoiceModel(log, join(REPO_ROOT, 'models'));
    const readiness = localReadinessChecks(emulators, dataDir);
    undoOnFailure.push(() => readiness.close());
    const server = createApiServer(
      apiRoutesOnFirstUse(),
      { ...docs, ...webApp },
      healthProbes({ ...readiness.checks, speech: speech.check }, isStarted, () => ({
        speech: speech.status(),
        voices: voices.status(),
      })),
      isStarted,
    );
    await new Promise<void>((done, fail) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        fail(
          error.code === 'EADDRINUSE'
            ? new StartUpProblem(
                `port ${options.port} on ${host} is already in use (another notes service, or another program): stop it, or choose other ports (PORT, NOTES_STORAGE_PORT)`,
              )
            : error,
        ),
      );
      server.listen(options.port, host, done);
    });
    performance.mark('runtime:listening');
    undoOnFailure.push(() => new Promise((done) => server.close(done)));
    const apiUrl = options.publicUrl ?? listenerUrl(host, (server.address() as AddressInfo).port);
    await emulators.storageCors.allowServiceOrigin(apiUrl);
    // The OAuth issuer and MCP resource are this server's own address; set before any handler reads
    // its configuration (the port is only known once listening).
    Object.assign(process.env, {
      NOTES_PUBLIC_URL: apiUrl,
      NOTES_OAUTH_SIGNING_KEY: await ensureSigningKey(dataDir),
    });
    const { newApiKey } = await ensureLocalAccount(getServices().accounts, dataDir, log);
    performance.mark('runtime:account-checked');
    // `npm run key:revoke` (another process) has the keys this process remembers forgotten at once.
    const stopForgettingKeys = forgetKeysOnRequest(dataDir, () => getServices().accounts.forgetAll(), log);
    undoOnFailure.push(stopForgettingKeys);

    // Started once the API listens: the first requests do not wait for the workers' modules.
    const workers =
      options.workers === false
        ? undefined
        : await startWorkers(emulators, transcriptionConcurrency, options, log);
    if (workers) undoOnFailure.push(() => workers.stop());
    performance.mark('runtime:workers-started');
    // The queues live in memory: work that was queued or running when the last run stopped is found
    // in the job records and queued again.
    await resumeInterruptedJobs(log);
    performance.mark('runtime:jobs-resumed');
    // Collections' retention periods, as the hourly schedule on AWS applies them.
    const retention = startRetentionTimer(getServices, loadConfig().NOTES_TRASH_DAYS, log);
    undoOnFailure.push(() => retention.stop());

    const info: RuntimeInfo = {
      pid: process.pid,
      api_url: apiUrl,
      storage_url: storageUrl,
      endpoints: emulators.endpoints,
      table_name: emulators.tableName,
      bucket_name: emulators.bucketName,
      queue_urls: emulators.queueUrls,
      transcription_concurrency: transcriptionConcurrency,
    };
    // Requests are served from here on; runtime.json tells clients so.
    started = true;
    await writeOwnerOnly(join(dataDir, 'runtime.json'), `${JSON.stringify(info, null, 2)}\n`);

    return {
      apiUrl,
      storageUrl,
      dataDir,
      newApiKey,
      info,
      speech,
      voices,
      async stop() {
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        const drainMs = (options.drainSeconds ?? DEFAULT_DRAIN_SECONDS) * 1000;
        const deadline = setTimeout(() => {
          log(`Work still running after ${drainMs / 1000} s: returning it to the queue`);
          workers?.stopRunningWork();
        }, drainMs);
        await Promise.all([workers?.stop(), retention.stop()]);
        clearTimeout(deadline);
        server.closeAllConnections();
        await closed;
        readiness.close();
        stopForgettingKeys();
        await emulators.stop();
      },
    };
  } catch (error) {
    for (const undo of undoOnFailure.reverse()) await Promise.resolve(undo()).catch(() => undefined);
    throw error;
  }
}

/**
 * The queue workers, in their own thread at a lower priority (src/local/queue-workers-in-thread.ts),
 * or on this thread for tests that swap the workers' engines or watch their services.
 */
async function startWorkers(
  emulators: Emulators,
  transcriptionConcurrency: number,
  options: LocalRuntimeOptions,
  log: (line: string) => void,
): Promise<QueueWorkers> {
  const settings: QueueWorkerSettings = {
    sqsEndpoint: emulators.endpoints.sqs,
    credentials: emulators.credentials,
    queueUrls: emulators.queueUrls,
    queueArns: emulators.queueArns,
    transcriptionConcurrency,
  };
  if (options.workersInProcess) return startQueueWorkersHere(settings, log);
  return startQueueWorkersInThread(settings, {
    log,
    onFailure: (error) => {
      // As an uncaught error of a handler did when they ran on this thread: the process ends, and
      // its next start queues the interrupted work again.
      setImmediate(() => {
        throw error;
      });
    },
  });
}

/** Stops emulators once they have started; a start that failed has undone itself. */
async function stopOnceStarted(emulators: Promise<Emulators> | undefined): Promise<void> {
  await emulators?.then(
    (started) => started.stop(),
    () => undefined,
  );
}

/** Sends again the work of every job left in flight by the previous run; logs one line of totals. */
async function resumeInterruptedJobs(log: (line: string) => void): Promise<void> {
  const services = getServices();
  // Every job found belongs to the previous run: the same reconciliation as on AWS, without leases.
  const { counts } = await reconcileJobs(
    services,
    (services.notes as DynamoNoteStore).scanInFlightJobs(),
    'dead-run',
    // A job that cannot be resumed now (a full disk) stays as it is for the next start; the
    // runtime still starts, so the user can free space or delete notes through the API.
    (job, error) =>
      log(
        `Could not resume job ${job.kind} of note ${job.note_id}: ${error instanceof Error ? error.name : 'error'}`,
      ),
  );
  if (counts.requeued + counts.upload_found + counts.failed > 0) {
    log(
      `Resumed interrupted work: ${counts.requeued} job(s) queued again, ${counts.upload_found} upload(s) picked up, ${counts.failed} given up`,
    );
  }
}

/**
 * The public documentation files ({docs_url} in the spec), served without authentication as the AWS
 * docs site serves them: the contract at /openapi.yaml and every file of docs/public/ (built by
 * `npm run docs:build`) at its path there, e.g. /llms.txt and /references/rest.md.
 */
async function publishedDocs(): Promise<Record<string, StaticFile>> {
  const files: Record<string, StaticFile> = {
    '/openapi.yaml': {
      contentType: PUBLISHED_DOC_CONTENT_TYPES['.yaml'],
      body: await readFile(join(REPO_ROOT, 'openapi.yaml'), 'utf8'),
    },
  };
  const publicDir = join(REPO_ROOT, 'docs', 'public');
  const entries = await readdir(publicDir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const contentType = (PUBLISHED_DOC_CONTENT_TYPES as Record<string, string>)[extname(entry.name)];
    if (!entry.isFile() || !contentType) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = `/${relative(publicDir, path).split(sep).join('/')}`;
    files[urlPath] = { contentType, body: await readFile(path, 'utf8') };
  }
  return files;
}

function apiRoutesOnFirstUse(): LocalRoute[] {
  const operations = (Object.entries(apiRoutes) as Array<[OperationId, (typeof apiRoutes)[OperationId]]>).map(
    ([operationId, route]) => ({
      operationId,
      method: route.method,
      path: route.path,
      handler: importedOnFirstCall<ApiLambdaHandler>(operationId),
    }),
  );
  const publicEndpoints = (Object.entries(publicRoutes) as Array<[PublicRouteName, PublicRoute]>).map(
    ([name, route]) => {
      const handler = importedOnFirstCall<ApiLambdaHandler>(name);
      return route.endpoints.map(({ method, path }) => ({ operationId: name, method, path, handler }));
    },
  );
  return [...operations, ...publicEndpoints.flat()];
}

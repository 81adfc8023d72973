/**
 * The deployed artifacts, run: the stack is synthesised with bundling, each function's asset is
 * copied alone into a temporary folder and invoked there by Node 22 (Lambda's runtime) with the
 * events AWS sends, against the project's local stand-ins. Every step runs twice, once through the
 * bundle (note A) and once through the source handler in this process (note B), and the results
 * must be the same but for the note's identity, times and signatures.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, eventWorkers, publicRoutes, queueWorkers } from '../../src/routes.ts';
import type { ConverseReply } from '../support/bedrock-stand-in.ts';
import { httpApiEvent, scheduledEvent, sqsEvent } from './support/aws-events.ts';
import { epiphanyToolUse, insightsToolUse, type TranscriptView } from './support/converse-replies.ts';
import {
  bodyOf,
  Deployment,
  EXAMPLE_PUBLIC_VALUES,
  expectCleanLogs,
  messageFor,
  rest,
  TRANSCRIBE_DATA_ACCESS_ROLE_ARN,
} from './support/deployment.ts';
import { resultOf } from './support/isolated-bundle.ts';
import { startedJobs } from './support/transcribe-stand-in.ts';

let deployment: Deployment;
let apiKey: string;

const noteA = randomUUID();
const noteB = randomUUID();
const notes = [noteA, noteB] as const;

/** Runs `build(note)` through the bundle for note A and the source for note B; both must agree. */
const bothWays = (
  name: string,
  build: (noteId: string) => unknown,
  pair: readonly [string, string] = notes,
) => deployment.bothWays(name, build, pair);
const request =
  (operationId: keyof typeof apiRoutes, body?: unknown, more: Record<string, string> = {}) =>
  (note: string) =>
    rest(apiKey, operationId, note, body, more);

beforeAll(async () => {
  deployment = await Deployment.start();
  const { getServices } = await import('../../src/wiring/services.ts');
  const { createAccount } = await import('../../src/domain/accounts.ts');
  apiKey = (await createAccount(getServices().accounts, 'deployed-artifacts')).api_key;
}, 300_000);

afterAll(() => deployment?.stop());

describe('the deployed bundles on Node 22', () => {
  it('the cloud assembly has one nodejs22.x function per route and worker, each with its own asset', () => {
    const expected = [
      ...Object.keys(apiRoutes),
      ...Object.keys(publicRoutes),
      ...Object.keys(queueWorkers),
      ...Object.keys(eventWorkers),
    ].sort();
    expect([...deployment.functions.keys()].sort()).toEqual(expected);
    for (const fn of deployment.functions.values()) {
      expect([fn.name, fn.runtime, fn.handler]).toEqual([fn.name, 'nodejs22.x', 'index.handler']);
    }
  });

  it('every bundle loads from a folder holding only its asset and exports a handler', async () => {
    const loaded: Record<string, unknown> = {};
    for (const name of deployment.functions.keys()) {
      const bundle = await deployment.bundle(name);
      loaded[name] = resultOf(await bundle.load(deployment.environmentOf(name)), `loading ${name}`);
    }
    expect(loaded).toEqual(
      Object.fromEntries([...deployment.functions.keys()].map((name) => [name, 'function'])),
    );
  });
});

describe('a recording through the deployed bundles', () => {
  it('REST: the account and an empty list answer as the sources do', async () => {
    const account = await bothWays('getCurrentAccount', request('getCurrentAccount'));
    expect(account.bundled).toMatchObject({ statusCode: 200 });
    const list = await bothWays('listNotes', request('listNotes'));
    expect(bodyOf(list.bundled)).toMatchObject({ notes: [] });
  });

  it('REST: the web app origin gets CORS answers from the REST bundles and the restPreflight bundle', async () => {
    const origin = EXAMPLE_PUBLIC_VALUES.NOTES_WEB_APP_URL;
    const fromApp = (event: ReturnType<typeof httpApiEvent>) => ({
      ...event,
      headers: { ...event.headers, origin, 'access-control-request-method': 'PATCH' },
    });
    const account = (await deployment.viaBundle(
      'getCurrentAccount',
      fromApp(httpApiEvent({ method: 'GET', route: '/v1/account', apiKey })),
    )) as { headers: Record<string, string> };
    expect(account.headers['Access-Control-Allow-Origin']).toBe(origin);
    expect(account.headers['Access-Control-Expose-Headers']).toContain('ETag');
    const preflight = (await deployment.viaBundle(
      'restPreflight',
      fromApp(
        httpApiEvent({
          method: 'OPTIONS',
          route: '/v1/{proxy+}',
          pathParameters: { proxy: 'notes' },
          apiKey,
        }),
      ),
    )) as { statusCode: number; headers: Record<string, string> };
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['Access-Control-Allow-Origin']).toBe(origin);
    expect(preflight.headers['Access-Control-Allow-Headers']).toContain('If-Match');
  });

  it('REST: submitting a recording answers 202 with a presigned upload, as the source does', async () => {
    const submitted = await deployment.submitAndUpload(apiKey, notes);
    expect(submitted.bundled).toMatchObject({ statusCode: 202 });
  });

  it('the S3 upload event, through the uploads queue, queues the job, and the transcription worker starts a Transcribe job', async () => {
    await deployment.startTranscriptions(notes);
    const jobs = startedJobs(deployment.transcribe);
    expect(jobs).toHaveLength(2);
    expect(deployment.transcribeJobOf(noteA)).toMatchObject({
      Media: {
        MediaFileUri: expect.stringMatching(
          new RegExp(`^s3://${deployment.emulators.bucketName}/accounts/.+/notes/${noteA}/audio$`),
        ),
      },
      OutputBucketName: deployment.emulators.bucketName,
      Settings: { ShowSpeakerLabels: true },
      LanguageCode: 'en-US',
      // The stack gives the worker the data access role: past the quota, Transcribe queues the job.
      JobExecutionSettings: {
        AllowDeferredExecution: true,
        DataAccessRoleArn: TRANSCRIBE_DATA_ACCESS_ROLE_ARN,
      },
    });
    // Named by the run: the job's creation time (ms) × 1000 + its attempt (1).
    expect(String(deployment.transcribeJobOf(noteA).TranscriptionJobName)).toMatch(
      new RegExp(`^notes-dev-.+\\.${noteA}\\.\\d{13}001$`),
    );
    const pending = await bothWays('getTranscription', request('getTranscription'));
    expect(pending.bundled).toMatchObject({ statusCode: 202 });
  });

  it('the Transcribe state-change event makes transcriptionCompleted finish the transcript', async () => {
    await deployment.completeTranscriptions(notes);
    const done = await bothWays('getTranscription', request('getTranscription'));
    expect(done.bundled).toMatchObject({ statusCode: 200 });
    expect((done.bundled as { body: string }).body).toContain('Maria');
    transcript = bodyOf<TranscriptView>(done.bundled);
  });

  it('Insights: the request queues the work; the generation worker asks Bedrock over HTTP/2 and stores them', async () => {
    const insights = await generateThroughBundles(
      'generateInsights',
      'getInsights',
      {},
      insightsToolUse(transcript),
    );
    const model = String(deployment.function('generationWorker').environment.NOTES_BEDROCK_MODEL_ID);
    expect(new Set(deployment.bedrock.calls)).toEqual(new Set([`/model/${model}/converse`]));
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

/** The completed transcript of note A, which the Insights' citations must point into. */
let transcript: TranscriptView;

/**
 * Requests a generation (202), hands the queued messages to the generation worker while Bedrock
 * answers `answer`, and reads the result (200): each step through bundle and source alike. Each
 * generation is one Converse call. Returns the bundle's stored result body.
 */
async function generateThroughBundles(
  requested: 'generateInsights' | 'generateNoteArtifact',
  read: 'getInsights' | 'getNoteArtifact',
  more: Record<string, string>,
  answer: ConverseReply,
): Promise<string> {
  const queued = await bothWays(requested, request(requested, {}, more));
  expect(queued.bundled, JSON.stringify(queued.bundled)).toMatchObject({ statusCode: 202 });
  const messages = await deployment.receiveMessages(deployment.emulators.queueUrls.generation, 2);
  const { bedrock, emulators } = deployment;
  const callsBefore = bedrock.calls.length;
  bedrock.replies.push(answer, answer);
  const worker = await bothWays('generationWorker', (note) =>
    sqsEvent([messageFor(messages, note)], emulators.queueArns.generation),
  );
  expect(worker.bundled).toEqual({ batchItemFailures: [] });
  expect(bedrock.calls.length - callsBefore, 'Converse calls for two generations').toBe(2);
  const stored = await bothWays(read, request(read, undefined, more));
  expect(stored.bundled, JSON.stringify(stored.bundled)).toMatchObject({ statusCode: 200 });
  return (stored.bundled as { body: string }).body;
}

describe("collections' retention through its bundle", () => {
  it("the hourly schedule event moves a note past its collection's period to the trash, in the note's history", async () => {
    const { getServices } = await import('../../src/wiring/services.ts');
    const { createCollection, addNoteToCollection } = await import('../../src/domain/collections.ts');
    const services = getServices();
    const accountId = String(
      bodyOf<{ account_id: string }>(
        await deployment.viaBundle('getCurrentAccount', request('getCurrentAccount')('')),
      ).account_id,
    );
    const collection = await createCollection(services, accountId, { name: 'Routine', retention_days: 1 });
    const noteId = randomUUID();
    const madeAt = Date.now() - 3 * 86_400_000;
    await services.notes.createNoteIfAbsent({
      account_id: accountId,
      note_id: noteId,
      title: 'An old stand-up',
      state: 'active',
      created_at: madeAt,
      updated_at: madeAt,
      trashed_at: null,
      audio: null,
    });
    await addNoteToCollection(services, accountId, collection.collection_id, noteId);

    expect(
      await deployment.viaBundle('applyRetention', scheduledEvent('notes-dev-ApplyRetentionSchedule')),
    ).toBeNull();
    const note = bodyOf<{ state: string; history: { event: string; by: string }[] }>(
      await deployment.viaBundle('getNote', rest(apiKey, 'getNote', noteId)),
    );
    expect(note.state).toBe('trashed');
    expect(note.history).toEqual([expect.objectContaining({ event: 'trashed', by: 'retention' })]);
  });
});

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
    const [key] = bodyOf<{ keys: Array<Record<string, string>> }>(
      await deployment.viaBundle('oauthMetadata', event),
    ).keys;
    const expected = deployment.kms.publicKey.export({ format: 'jwk' });
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', x: expected.x, y: expected.y });
    expect(
      deployment.kms.received.some(
        (received) => received.headers['x-amz-target'] === 'TrentService.GetPublicKey',
      ),
    ).toBe(true);
  });
});

describe('a recording whose transcription keeps failing', () => {
  const failing = [randomUUID(), randomUUID()] as const;

  it('the uploads dead-letter bundle ends the job as failed when the upload event reaches the dead-letter queue', async () => {
    await deployment.submitAndUpload(apiKey, failing);
    const { emulators } = deployment;
    const messages = await deployment.receiveMessages(emulators.queueUrls.uploads, 2);
    // The same message, as Lambda delivers it from the dead-letter queue after the last receive.
    const deadLetter = await bothWays(
      'uploadsDeadLetter',
      (note) => sqsEvent([messageFor(messages, note)], emulators.queueArns.uploadsDlq),
      failing,
    );
    expect(deadLetter.bundled).toEqual({ batchItemFailures: [] });
    const failed = await bothWays('getTranscription', request('getTranscription'), failing);
    expect(bodyOf(failed.bundled)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/Submit the note again/),
    });
  });
});

describe('what the bundles log', () => {
  it('holds no API key, credentials, bearer header or transcript text', () => {
    expectCleanLogs(deployment, [apiKey, 'Maria', 'budget numbers']);
  });
});

/**
 * The reconciler's deployed bundle, run (as bundles-run-the-journey.test.ts runs the others): the
 * completion handler's bundle throws on the Transcribe event (the output document is not readable
 * yet), so on AWS Lambda would retry it twice and park it in the dead-letter queue; the next
 * scheduled run of the reconciler's bundle asks Transcribe (GetTranscriptionJob against the
 * stand-in) and finishes the note with the same code. A job Transcribe is still running is left.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { createDocumentClient } from '../../src/adapters/dynamodb/client.ts';
import { DynamoNoteStore } from '../../src/adapters/dynamodb/note-store.ts';
import type { Job } from '../../src/domain/job.ts';
import { MAX_FINISH_TRIES } from '../../src/domain/job-reconciliation.ts';
import { scheduledEvent, transcribeJobStateChange } from './support/aws-events.ts';
import { bodyOf, Deployment, rest } from './support/deployment.ts';

const TRANSCRIBE_OUTPUTS = resolve(import.meta.dirname, '..', 'fixtures', 'transcribe');
const MINUTE = 60_000;
let deployment: Deployment;
let apiKey: string;
let notes: DynamoNoteStore;
const recovered = randomUUID();
const stillRunning = randomUUID();

beforeAll(async () => {
  deployment = await Deployment.start();
  const { getServices } = await import('../../src/wiring/services.ts');
  const { createAccount } = await import('../../src/domain/accounts.ts');
  apiKey = (await createAccount(getServices().accounts, 'deployed-reconciler')).api_key;
  const { endpoints, credentials, tableName } = deployment.emulators;
  notes = new DynamoNoteStore(
    createDocumentClient(localAwsClientConfig(endpoints.dynamodb, credentials)),
    tableName,
  );
}, 300_000);

afterAll(() => deployment?.stop());

/** The note's transcription job, found by its Transcribe job name (`<prefix><account>.<note>.<run>`). */
async function jobOf(note: string): Promise<Job> {
  const [accountPart] = String(deployment.transcribeJobOf(note).TranscriptionJobName).split('.');
  const accountId = String(accountPart).replace(/^notes-dev-/, '');
  const job = await notes.getJob(accountId, note, 'transcription');
  if (!job) throw new Error(`no transcription job for ${note}`);
  return job;
}

/** As time leaves it: the job has waited half an hour for its event (its 6-hour lease still runs). */
async function waitedHalfAnHour(note: string): Promise<void> {
  const job = await jobOf(note);
  expect(await notes.replaceJob(job, { ...job, updated_at: Date.now() - 30 * MINUTE })).toBe(true);
}

describe('a Transcribe completion that the completion handler fails', () => {
  it('ends with the note transcribed by the reconciler’s next scheduled run', async () => {
    await deployment.submitAndUpload(apiKey, [recovered, stillRunning]);
    await deployment.startTranscriptions([recovered, stillRunning]);
    const name = String(deployment.transcribeJobOf(recovered).TranscriptionJobName);

    // The event comes before the output document can be read: the handler's bundle throws.
    const completion = await deployment.bundle('transcriptionCompleted');
    const failed = await completion.invoke(
      transcribeJobStateChange(name, 'COMPLETED'),
      deployment.environmentOf('transcriptionCompleted'),
    );
    expect(failed).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/output document is missing/) },
    });
    const pending = await deployment.viaSource(
      'getTranscription',
      rest(apiKey, 'getTranscription', recovered),
    );
    expect(bodyOf(pending)).toMatchObject({ status: 'processing' });

    // Transcribe has the job COMPLETED and its output where it said; the event is not sent again.
    const job = deployment.transcribeJobOf(recovered);
    const s3 = new S3Client(
      localAwsClientConfig(deployment.emulators.endpoints.s3, deployment.emulators.credentials),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: String(job.OutputBucketName),
        Key: String(job.OutputKey),
        Body: await readFile(join(TRANSCRIBE_OUTPUTS, 'two-speakers.json'), 'utf8'),
      }),
    );
    s3.destroy();
    deployment.transcribe.ended.set(name, 'COMPLETED');
    await waitedHalfAnHour(recovered);
    await waitedHalfAnHour(stillRunning);
    const runningBefore = await jobOf(stillRunning);

    const run = await deployment.viaBundle(
      'reconcileJobs',
      scheduledEvent('notes-dev-ReconcileJobsSchedule'),
    );
    expect(run).toBeNull();

    const done = await deployment.viaBundle('getTranscription', rest(apiKey, 'getTranscription', recovered));
    expect(done).toMatchObject({ statusCode: 200 });
    expect((done as { body: string }).body).toContain('Maria');
    const asked = deployment.transcribe.received
      .filter((request) => request.headers['x-amz-target'] === 'Transcribe.GetTranscriptionJob')
      .map((request) => request.body.TranscriptionJobName);
    expect(asked.sort()).toEqual(
      [name, deployment.transcribeJobOf(stillRunning).TranscriptionJobName].sort(),
    );
    // The job Transcribe is still running is left to its event.
    expect(await jobOf(stillRunning)).toEqual(runningBefore);
  });
});

describe('a Transcribe completion that fails every time', () => {
  it(`ends the note failed after ${MAX_FINISH_TRIES} runs of the reconciler's bundle, with a reason the person sees`, async () => {
    // Transcribe says the second job COMPLETED, but its output document never appears: finishing
    // throws on every run, as a completion that cannot be saved would.
    const name = String(deployment.transcribeJobOf(stillRunning).TranscriptionJobName);
    deployment.transcribe.ended.set(name, 'COMPLETED');
    const reconciler = await deployment.bundle('reconcileJobs');
    const schedule = scheduledEvent('notes-dev-ReconcileJobsSchedule');
    for (let run = 1; run <= MAX_FINISH_TRIES; run++) {
      await waitedHalfAnHour(stillRunning);
      const outcome = await reconciler.invoke(schedule, deployment.environmentOf('reconcileJobs'));
      expect(outcome).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/could not be reconciled/) },
      });
      expect(await jobOf(stillRunning)).toMatchObject({ status: 'processing', finish_tries: run });
    }
    await waitedHalfAnHour(stillRunning);
    expect(await deployment.viaBundle('reconcileJobs', schedule)).toBeNull();
    const failed = await deployment.viaBundle(
      'getTranscription',
      rest(apiKey, 'getTranscription', stillRunning),
    );
    expect(bodyOf(failed)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/could not be saved: finishing it failed 4 times/),
    });
  });
});

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  type GetTranscriptionJobCommand,
  type GetTranscriptionJobCommandOutput,
  StartTranscriptionJobCommand,
} from '@aws-sdk/client-transcribe';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as reconcileJobs } from '../../functions/reconcileJobs.ts';
import { TranscribeSpeechToText } from '../../src/adapters/transcribe/transcribe-speech-to-text.ts';
import { recordArrivedUpload } from '../../src/domain/arrived-uploads.ts';
import { type Job, runNumber } from '../../src/domain/job.ts';
import { MAX_FINISH_TRIES, MAX_LIVE_JOB_AGE_MS } from '../../src/domain/job-reconciliation.ts';
import { runTranscription } from '../../src/domain/transcription-worker.ts';
import type { LocalRuntime } from '../../src/local/runtime.ts';
import { getWorkerServices } from '../../src/wiring/worker-services.ts';
import type { Api } from '../support/api.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { submitAndUpload } from '../support/transcribe.ts';

/**
 * The scheduled reconciler of AWS (functions/reconcileJobs.ts) run against the real local stores and
 * queues, with Amazon Transcribe as the only stand-in: its client records StartTranscriptionJob and
 * answers GetTranscriptionJob with responses in the documented shape (or the BadRequestException
 * Transcribe gives for a job it does not have). No queue workers run: the test plays them.
 */
const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'transcribe');
const PREFIX = 'notes-test-';
const MINUTE = 60_000;
let service: InProcessService;
let runtime: LocalRuntime;
let api: Api;
let sqs: SQSClient;
/** What GetTranscriptionJob answers per job name (a fixture file); absent: Transcribe has no such job. */
const transcribeJobs = new Map<string, string>();
const asked: string[] = [];

const transcribeClient = {
  send: async (command: StartTranscriptionJobCommand | GetTranscriptionJobCommand) => {
    if (command instanceof StartTranscriptionJobCommand) return { $metadata: {} };
    const name = String(command.input.TranscriptionJobName);
    asked.push(name);
    const fixture = transcribeJobs.get(name);
    if (!fixture) {
      throw Object.assign(
        new Error("The requested job couldn't be found. Check the job name and try your request again."),
        { name: 'BadRequestException' },
      );
    }
    const output = JSON.parse(
      await readFile(join(FIXTURES, fixture), 'utf8'),
    ) as GetTranscriptionJobCommandOutput;
    if (output.TranscriptionJob) output.TranscriptionJob.TranscriptionJobName = name;
    return output;
  },
};

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  ({ runtime, api } = service);
  sqs = new SQSClient(await emulatorClientConfig(service.dataDir, runtime.info.endpoints.sqs));
  const transcribe = new TranscribeSpeechToText(transcribeClient, getWorkerServices().blobs, {
    bucket: runtime.info.bucket_name,
    jobPrefix: PREFIX,
    languageCode: 'en-US',
  });
  Object.assign(getWorkerServices(), { speech: transcribe, engineName: 'amazon-transcribe' });
});
afterAll(async () => {
  sqs?.destroy();
  await service?.stop();
});
beforeEach(async () => {
  await takeTranscriptionMessages();
  asked.length = 0;
});

const reconcile = () => reconcileJobs({}, {} as Context);
const notes = () => getWorkerServices().notes;

/** Uploaded, its upload taken, and its Transcribe job started by the worker (no workers run here). */
async function recognizingNote(): Promise<{ accountId: string; noteId: string }> {
  const { file, contentType } = await speechFixture('slt', 'wav');
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, file, contentType);
  const accountId = (await api('GET', '/v1/account')).body.account_id as string;
  expect(await recordArrivedUpload(getWorkerServices(), accountId, noteId)).toBe('queued');
  expect(await runTranscription(getWorkerServices(), { accountId, noteId })).toBe('started');
  await takeTranscriptionMessages();
  return { accountId, noteId };
}

async function transcriptionJob(accountId: string, noteId: string): Promise<Job> {
  const job = await notes().getJob(accountId, noteId, 'transcription');
  if (!job) throw new Error('the note has no transcription job');
  return job;
}

/** Rewrites the job as time would have left it: claimed `minutes` ago, its lease ending as given. */
async function age(accountId: string, noteId: string, minutes: number, leaseExpiresAt: number): Promise<Job> {
  const job = await transcriptionJob(accountId, noteId);
  const aged = { ...job, updated_at: Date.now() - minutes * MINUTE, lease_expires_at: leaseExpiresAt };
  expect(await notes().replaceJob(job, aged)).toBe(true);
  return aged;
}

function transcribeJobName(accountId: string, noteId: string, job: Job): string {
  return `${PREFIX}${accountId}.${noteId}.${runNumber(job)}`;
}

/** Takes every message waiting on the transcription queue; returns the notes they ask for. */
async function takeTranscriptionMessages(): Promise<string[]> {
  const noteIds: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: runtime.info.queue_urls.transcription, MaxNumberOfMessages: 10 }),
    );
    if (Messages.length === 0) return noteIds;
    for (const message of Messages) {
      noteIds.push((JSON.parse(message.Body ?? '{}') as { note_id: string }).note_id);
      await sqs.send(
        new DeleteMessageCommand({
          QueueUrl: runtime.info.queue_urls.transcription,
          ReceiptHandle: message.ReceiptHandle,
        }),
      );
    }
  }
}

async function writeTranscribeOutput(accountId: string, noteId: string, job: Job): Promise<void> {
  await getWorkerServices().blobs.putJson(
    `accounts/${accountId}/notes/${noteId}/transcribe-output-${runNumber(job)}.json`,
    JSON.parse(await readFile(join(FIXTURES, 'two-speakers.json'), 'utf8')),
  );
}

describe('the scheduled reconciler', () => {
  it('leaves alone a job a live worker holds, without asking Transcribe about a job just started', async () => {
    const { accountId, noteId } = await recognizingNote();
    const before = await transcriptionJob(accountId, noteId);
    await reconcile();
    expect(await transcriptionJob(accountId, noteId)).toEqual(before);
    expect(asked).toEqual([]);
    expect(await takeTranscriptionMessages()).not.toContain(noteId);
  });

  it('leaves a recognition Transcribe is still running to its completion event', async () => {
    const { accountId, noteId } = await recognizingNote();
    const job = await age(accountId, noteId, 30, Date.now() + 60 * MINUTE);
    transcribeJobs.set(transcribeJobName(accountId, noteId, job), 'get-job-in-progress.json');
    await reconcile();
    expect(asked).toContain(transcribeJobName(accountId, noteId, job));
    expect(await transcriptionJob(accountId, noteId)).toEqual(job);
  });

  it('queues again a job whose worker died (lease run out), and the work then completes once', async () => {
    const { accountId, noteId } = await recognizingNote();
    // The worker died after claiming the job and before Transcribe had the job.
    await age(accountId, noteId, 30, Date.now() - 1);
    await reconcile();
    const queued = await transcriptionJob(accountId, noteId);
    expect(queued).toMatchObject({ status: 'queued', stage: 'queued', attempts: 1, interruptions: 1 });
    expect(queued.lease_expires_at).toBeUndefined();
    expect(await takeTranscriptionMessages()).toEqual([noteId]);

    // The queue's delivery starts a new Transcribe job; its event finishes the note.
    expect(await runTranscription(getWorkerServices(), { accountId, noteId })).toBe('started');
    const second = await transcriptionJob(accountId, noteId);
    expect(second.attempts).toBe(2);
    await writeTranscribeOutput(accountId, noteId, second);
    transcribeJobs.set(transcribeJobName(accountId, noteId, second), 'get-job-completed.json');
    await age(accountId, noteId, 30, Date.now() + 60 * MINUTE);
    await reconcile();
    const done = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(done.status).toBe(200);
    expect((await transcriptionJob(accountId, noteId)).attempts).toBe(2);

    // Completed: it is no longer in flight, so later runs neither queue nor ask about it.
    asked.length = 0;
    await reconcile();
    expect(asked.filter((name) => name.includes(noteId))).toEqual([]);
    expect(await takeTranscriptionMessages()).not.toContain(noteId);
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).body).toEqual(done.body);
  });

  it('finishes a transcription whose completion event was missed from what GetTranscriptionJob says', async () => {
    const { accountId, noteId } = await recognizingNote();
    const job = await age(accountId, noteId, 30, Date.now() + 5 * 60 * MINUTE);
    await writeTranscribeOutput(accountId, noteId, job);
    transcribeJobs.set(transcribeJobName(accountId, noteId, job), 'get-job-completed.json');

    await reconcile();

    const done = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(done.status).toBe(200);
    const segments = done.body.conversation_segments as Array<{ speaker: string }>;
    expect(new Set(segments.map((segment) => segment.speaker))).toEqual(new Set(['Speaker 1', 'Speaker 2']));
    expect(done.body.engine).toBe('amazon-transcribe');
    // As the event handler does, the provider's output is removed once the job is settled.
    expect(await getWorkerServices().blobs.listKeys(`accounts/${accountId}/notes/${noteId}/`)).toEqual([
      `accounts/${accountId}/notes/${noteId}/audio`,
      `accounts/${accountId}/notes/${noteId}/transcription.json`,
    ]);
    expect(await transcriptionJob(accountId, noteId)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('fails a transcription Transcribe failed for good, with its reason, when the event was missed', async () => {
    const { accountId, noteId } = await recognizingNote();
    const job = await age(accountId, noteId, 30, Date.now() + 5 * 60 * MINUTE);
    transcribeJobs.set(transcribeJobName(accountId, noteId, job), 'get-job-failed.json');

    await reconcile();

    const failed = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(failed.body).toMatchObject({ status: 'failed' });
    expect(String(failed.body.detail)).toMatch(/media format provided does not match/);
  });

  it(`ends failed a transcription whose completion fails every time, after ${MAX_FINISH_TRIES} tries`, async () => {
    const { accountId, noteId } = await recognizingNote();
    const job = await age(accountId, noteId, 30, Date.now() + 5 * 60 * MINUTE);
    // Transcribe says it completed, but its output document is not where it says: finishing throws.
    transcribeJobs.set(transcribeJobName(accountId, noteId, job), 'get-job-completed.json');
    for (let run = 1; run <= MAX_FINISH_TRIES; run++) {
      await expect(reconcile()).rejects.toThrow(/could not be reconciled/);
      expect(await transcriptionJob(accountId, noteId)).toMatchObject({
        status: 'processing',
        finish_tries: run,
      });
    }
    await reconcile();
    const failed = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(failed.body).toMatchObject({ status: 'failed' });
    expect(String(failed.body.detail)).toMatch(/could not be saved: finishing it failed 4 times/);
    // Ended: no later run asks about it again.
    asked.length = 0;
    await reconcile();
    expect(asked.filter((name) => name.includes(noteId))).toEqual([]);
  });

  it('gives up a job still processing 12 hours after its work first started, held by no worker, instead of running it again', async () => {
    const { accountId, noteId } = await recognizingNote();
    const job = await transcriptionJob(accountId, noteId);
    const old = {
      ...job,
      first_claimed_at: Date.now() - MAX_LIVE_JOB_AGE_MS - MINUTE,
      updated_at: Date.now() - 30 * MINUTE,
      lease_expires_at: Date.now() - 1,
    };
    expect(await notes().replaceJob(job, old)).toBe(true);
    await reconcile();
    expect(await transcriptionJob(accountId, noteId)).toMatchObject({
      status: 'failed',
      detail:
        'The work did not finish within 12 hours of its start and was given up. Request it again to retry.',
    });
    expect(await takeTranscriptionMessages()).not.toContain(noteId);
  });
});

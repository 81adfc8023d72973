import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoNoteStore } from '../../src/adapters/dynamodb/note-store.ts';
import type { DomainDeps } from '../../src/domain/deps.ts';
import { type Job, type JobKind, queuedJob, runNumber } from '../../src/domain/job.ts';
import {
  QUEUED_RESEND_AFTER_MS,
  RECOGNITION_CHECK_AFTER_MS,
  type ReconcileMode,
  reconcileJob,
} from '../../src/domain/job-reconciliation.ts';
import type { WorkerDeps } from '../../src/domain/transcription-worker.ts';
import type { BatchJobStatus, BatchSpeechToText } from '../../src/ports/speech-to-text.ts';
import type { GenerationRequest, TranscriptionRequest } from '../../src/ports/work-queue.ts';
import { startTableUnderTest, type TableUnderTest } from '../support/emulator-clients.ts';

/**
 * The reconciler's decisions (src/domain/job-reconciliation.ts), made on jobs stored in the emulated
 * DynamoDB: which jobs it resumes, leaves or asks the recognition provider about, in each mode. The
 * clock is the deps' own; the queue records what is sent; storage must not be touched.
 */
const HOUR = 60 * 60 * 1000;
const NOW = 1_800_000_000_000;
let table: TableUnderTest;
let notes: DynamoNoteStore;
let sent: Array<TranscriptionRequest | GenerationRequest>;
let clock: number;
/** What the recognition provider says about a run; every question is recorded. */
let providerSays: BatchJobStatus;
let asked: number[];

const provider: BatchSpeechToText = {
  start: () => Promise.reject(new Error('not started by the reconciler')),
  result: () => Promise.reject(new Error('no result in these tests')),
  cleanUp: () => Promise.resolve(),
  status: async (job) => {
    asked.push(job.attempt);
    return providerSays;
  },
};

const untouchable = new Proxy(
  {},
  {
    get: () => () => Promise.reject(new Error('storage is not touched here')),
  },
);

function deps(batch = false): DomainDeps | WorkerDeps {
  const base = {
    notes,
    collections: untouchable,
    blobs: untouchable,
    search: untouchable,
    queue: {
      requestTranscription: async (request: TranscriptionRequest) => void sent.push(request),
      requestGeneration: async (request: GenerationRequest) => void sent.push(request),
    },
    now: () => clock,
  } as unknown as DomainDeps;
  return batch ? { ...base, speech: provider, engineName: 'test-batch', language: 'en-US' } : base;
}

beforeAll(async () => {
  table = await startTableUnderTest('reconciliation');
  notes = new DynamoNoteStore(table.db, table.emulators.tableName);
});
afterAll(() => table?.stop());
beforeEach(() => {
  sent = [];
  asked = [];
  clock = NOW;
  providerSays = { state: 'running' };
});

/** A job stored as a worker left it: `changes` on a queued job made `ageMs` before now. */
async function storedJob(kind: JobKind, ageMs: number, changes: Partial<Job> = {}): Promise<Job> {
  const job: Job = { ...queuedJob(randomUUID(), randomUUID(), kind, NOW - ageMs), ...changes };
  await notes.createJobIfAbsent(job);
  return job;
}

const processing = (leaseFromNow: number, stage = 'generating'): Partial<Job> => ({
  status: 'processing',
  stage,
  attempts: 1,
  lease_expires_at: NOW + leaseFromNow,
});

async function reconcile(job: Job, mode: ReconcileMode, batch = false) {
  return reconcileJob(deps(batch), job, mode);
}

const current = (job: Job) => notes.getJob(job.account_id, job.note_id, job.kind);

describe('reconciling a job in flight', () => {
  it('on a local start, queues again a job whose lease has not run out: its worker died with the last run', async () => {
    const job = await storedJob('insights', 1000, processing(HOUR));
    expect(await reconcile(job, 'dead-run')).toBe('requeued');
    expect(await current(job)).toMatchObject({ status: 'queued', interruptions: 1 });
    expect(sent).toEqual([{ type: 'insights', account_id: job.account_id, note_id: job.note_id }]);
  });

  it('on AWS, leaves a job a live worker holds exactly as it is', async () => {
    const job = await storedJob('insights', 1000, processing(30_000));
    expect(await reconcile(job, 'live')).toBe('left');
    expect(await current(job)).toEqual(job);
    expect(sent).toEqual([]);
  });

  it('on AWS, queues again a job whose lease has run out, counting the interruption', async () => {
    const job = await storedJob('insights', 5 * 60_000, processing(-1));
    expect(await reconcile(job, 'live')).toBe('requeued');
    const queued = await current(job);
    expect(queued).toMatchObject({ status: 'queued', stage: 'queued', attempts: 1, interruptions: 1 });
    expect(queued?.lease_expires_at).toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  it('gives up a run interrupted for the fifth time, with a detail', async () => {
    const job = await storedJob('insights', 5 * 60_000, { ...processing(-1), interruptions: 4 });
    expect(await reconcile(job, 'live')).toBe('failed');
    expect(await current(job)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/interrupted 5 times/),
    });
    expect(sent).toEqual([]);
  });

  it('on AWS, leaves a queued job to its message, and sends it again once a day when it has waited a day', async () => {
    const recent = await storedJob('insights', QUEUED_RESEND_AFTER_MS - HOUR);
    expect(await reconcile(recent, 'live')).toBe('left');
    const stale = await storedJob('insights', QUEUED_RESEND_AFTER_MS + HOUR);
    expect(await reconcile(stale, 'live')).toBe('requeued');
    expect(sent).toEqual([{ type: 'insights', account_id: stale.account_id, note_id: stale.note_id }]);
    const renewed = await current(stale);
    expect(renewed).toMatchObject({ status: 'queued', updated_at: NOW });
    // The next run, a quarter of an hour later, does not send it again.
    clock = NOW + 15 * 60_000;
    expect(await reconcile(renewed as Job, 'live')).toBe('left');
    expect(sent).toHaveLength(1);
  });

  it('on AWS, leaves a job awaiting its upload to the uploads queue, without looking in storage', async () => {
    const job = await storedJob('transcription', 2 * QUEUED_RESEND_AFTER_MS, { stage: 'awaiting_upload' });
    expect(await reconcile(job, 'live')).toBe('left');
    expect(await current(job)).toEqual(job);
  });

  it('does not ask the provider about a recognition it started minutes ago', async () => {
    const job = await storedJob(
      'transcription',
      RECOGNITION_CHECK_AFTER_MS - 60_000,
      processing(5 * HOUR, 'recognizing'),
    );
    expect(await reconcile(job, 'live', true)).toBe('left');
    expect(asked).toEqual([]);
  });

  it('leaves a recognition the provider is still running, even after its lease ran out', async () => {
    const job = await storedJob('transcription', 7 * HOUR, processing(-1, 'recognizing'));
    expect(await reconcile(job, 'live', true)).toBe('recognition_running');
    expect(asked).toEqual([runNumber(job)]);
    expect(await current(job)).toEqual(job);
  });

  it('on AWS, leaves a recognition the provider does not know while its lease lasts, and queues it again after', async () => {
    providerSays = { state: 'unknown' };
    const held = await storedJob('transcription', HOUR, processing(5 * HOUR, 'recognizing'));
    expect(await reconcile(held, 'live', true)).toBe('left');
    const expired = await storedJob('transcription', 7 * HOUR, processing(-1, 'recognizing'));
    expect(await reconcile(expired, 'live', true)).toBe('requeued');
    expect(sent).toEqual([{ type: 'transcribe', account_id: expired.account_id, note_id: expired.note_id }]);
  });
});

describe('the in-flight jobs the reconciler reads on AWS', () => {
  it('are the queued and processing jobs, read from the index; a job leaves it when it ends', async () => {
    const queued = await storedJob('insights', 1000);
    const running = await storedJob('transcription', 1000, processing(HOUR, 'recognizing'));
    const done = await storedJob('insights', 1000, { status: 'completed', stage: 'completed' });
    const inFlight = async () => {
      const ids: string[] = [];
      for await (const job of notes.inFlightJobs()) ids.push(job.note_id);
      return ids;
    };
    const before = await inFlight();
    expect(before).toEqual(expect.arrayContaining([queued.note_id, running.note_id]));
    expect(before).not.toContain(done.note_id);
    expect(
      await notes.replaceJob(running, {
        ...running,
        status: 'failed',
        stage: 'failed',
        detail: 'x',
        updated_at: NOW + 1,
      }),
    ).toBe(true);
    expect(await inFlight()).not.toContain(running.note_id);
  });
});

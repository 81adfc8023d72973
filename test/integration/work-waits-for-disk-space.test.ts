import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpeechToText } from '../../src/ports/speech-to-text.ts';
import { storageFaultOf } from '../../src/ports/storage-faults.ts';
import { getServices } from '../../src/wiring/services.ts';
import { getWorkerServices } from '../../src/wiring/worker-services.ts';
import { type InjectedDiskFault, injectDatabaseDiskFaults } from '../support/database-disk-full.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload, type UploadTarget } from '../support/transcribe.ts';

/**
 * Work that meets a full disk waits for space instead of spending its retries: the queues give a
 * message one receive here (maxReceiveCount 1), so a single attempt counted against it would send it
 * to the dead-letter queue and end its job failed. The disk fills as LevelDB writes failing with
 * ENOSPC (the database's storage layer, below dynalite).
 */

// A short job lease: a storage wait outlasts it (the failed attempt could not release its job).
process.env.NOTES_JOB_LEASE_SECONDS = '2';

let service: InProcessService;
let disk: InjectedDiskFault;
/** Writes the database refused because the disk was full, counted from the services' note store. */
let refusedWrites = 0;

beforeAll(async () => {
  disk = injectDatabaseDiskFaults();
  // Workers on this thread too: the refused writes are counted from their note store.
  service = await startInProcess({ emulatorsInProcess: true, workersInProcess: true, maxReceiveCount: 1 });
  // The API's and the workers' services share this store; each write the full disk refuses counts.
  const notes = getServices().notes as unknown as Record<string, unknown>;
  for (const method of ['setAudio', 'replaceJob', 'updateJobStage']) {
    const original = notes[method] as (...args: unknown[]) => Promise<unknown>;
    notes[method] = async (...args: unknown[]) => {
      try {
        return await original.apply(notes, args);
      } catch (error) {
        if (storageFaultOf(error)) refusedWrites += 1;
        throw error;
      }
    };
  }
});
afterAll(() => service?.stop());

/** Waits (bounded) until the full disk has refused `count` more writes. */
async function refusedWritesReach(count: number): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (refusedWrites < count) {
    if (Date.now() > deadline) throw new Error(`only ${refusedWrites} writes refused, expected ${count}`);
    await sleep(200);
  }
}

/**
 * Stores the recording through its upload URL while the database is full, and waits until its
 * event's first attempt was refused: the note has not recorded the recording.
 */
async function storeWhileDatabaseFull(upload: UploadTarget, file: string): Promise<void> {
  disk.full = 'ENOSPC';
  const before = refusedWrites;
  try {
    const put = await fetch(upload.url, {
      method: upload.method,
      headers: upload.headers,
      body: await readFile(file),
    });
    expect(put.status).toBe(200);
    await refusedWritesReach(before + 1);
  } finally {
    disk.full = false;
  }
}

/** Polls the note's transcription until it is ready, and expects words. */
async function expectTranscribed(noteId: string): Promise<void> {
  const { final } = await pollUntilDone(service.api, `/v1/notes/${noteId}/transcription`, {
    intervalMs: 500,
  });
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  expect(String(final.body.full_text).length).toBeGreaterThan(0);
}

describe('work that meets a full disk', () => {
  it('takes an upload stored while the database is full once space is freed, and completes the job without a new upload', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const audio = await readFile(file);
    const noteId = randomUUID();
    const submitted = await service.api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'Uploaded on a full disk', content_type: contentType, size_bytes: audio.length },
    });
    expect(submitted.status).toBe(202);
    const upload = submitted.body.upload as UploadTarget;

    disk.full = 'ENOSPC';
    const before = refusedWrites;
    try {
      // The object store is not the database: the recording is stored; its event cannot be recorded.
      const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: audio });
      expect(put.status).toBe(200);
      // Three attempts of the upload's event, two more than its queue allows receives.
      await refusedWritesReach(before + 3);
    } finally {
      disk.full = false;
    }

    await expectTranscribed(noteId);
    const audioBack = await service.api('GET', `/v1/notes/${noteId}/audio`);
    expect(audioBack.status).toBe(200);
  }, 240_000);

  it('resumes a transcription in flight when the disk filled, and completes it once space returns', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const worker = getWorkerServices();
    const engine = worker.speech as SpeechToText;
    // The real engine, held at its start until the disk is full, so the attempt is in flight then.
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    let filled!: () => void;
    const diskFilled = new Promise<void>((resolve) => {
      filled = resolve;
    });
    let attempts = 0;
    Object.assign(worker, {
      speech: {
        async transcribe(...args: Parameters<SpeechToText['transcribe']>) {
          attempts += 1;
          started();
          await diskFilled;
          return engine.transcribe(...args);
        },
      } satisfies SpeechToText,
    });
    try {
      const noteId = randomUUID();
      await submitAndUpload(service.api, noteId, file, contentType, 'In flight on a full disk');
      await inFlight;
      disk.full = 'ENOSPC';
      const before = refusedWrites;
      try {
        filled();
        // The attempt's own writes, then the claims of two more deliveries, all refused.
        await refusedWritesReach(before + 4);
      } finally {
        disk.full = false;
      }

      await expectTranscribed(noteId);
      // Recognised again by the attempt that claimed it after space returned; one transcript.
      expect(attempts).toBe(2);
      const note = await service.api('GET', `/v1/notes/${noteId}`);
      expect(note.body.transcription_job).toMatchObject({ status: 'completed', attempts: 2 });
      const objects = await worker.blobs.listKeys('accounts/');
      expect(
        objects.filter((key) => key.includes(noteId) && key.endsWith('transcription.json')),
      ).toHaveLength(1);
    } finally {
      Object.assign(worker, { speech: engine });
    }
  }, 240_000);
});

describe('a submission for a note whose recording is already stored', () => {
  it('starts the job from the stored recording instead of offering an upload that could only be refused', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const { size } = await stat(file);
    const noteId = randomUUID();
    const body = { title: 'Stored, never recorded', content_type: contentType, size_bytes: size };
    const submitted = await service.api('POST', `/v1/notes/${noteId}/transcription`, { body });
    const upload = submitted.body.upload as UploadTarget;

    // Stored while the database is full, and submitted again before the upload's event is taken.
    await storeWhileDatabaseFull(upload, file);
    const again = await service.api('POST', `/v1/notes/${noteId}/transcription`, { body });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'queued', stage: 'queued' });
    expect(again.body.upload).toBeUndefined();
    expect((await service.api('GET', `/v1/notes/${noteId}/audio`)).status).toBe(200);

    await expectTranscribed(noteId);
  }, 240_000);

  it('starts from it when its job had ended failed before the upload was taken (the dead end of earlier releases)', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const { size } = await stat(file);
    const noteId = randomUUID();
    const body = { title: 'Failed, recording stored', content_type: contentType, size_bytes: size };
    const upload = (await service.api('POST', `/v1/notes/${noteId}/transcription`, { body })).body
      .upload as UploadTarget;
    await storeWhileDatabaseFull(upload, file);
    // What an earlier release left: the upload's retries spent, the job failed, the upload unrecorded.
    const notes = getServices().notes;
    const accountId = (await service.api('GET', '/v1/account')).body.account_id as string;
    const job = await notes.getJob(accountId, noteId, 'transcription');
    expect(job).toMatchObject({ status: 'queued', stage: 'awaiting_upload' });
    if (!job) return;
    expect(
      await notes.replaceJob(job, { ...job, status: 'failed', stage: 'failed', detail: 'retries spent' }),
    ).toBe(true);

    const again = await service.api('POST', `/v1/notes/${noteId}/transcription`, { body });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'queued', stage: 'queued' });
    expect(again.body.upload).toBeUndefined();
    await expectTranscribed(noteId);
  }, 240_000);
});

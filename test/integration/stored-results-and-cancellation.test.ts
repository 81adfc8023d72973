import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INTERRUPTIONS, resumeJob } from '../../src/domain/job-recovery.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import type { SpeechSynthesizer } from '../../src/ports/speech-synthesizer.ts';
import { getGenerationServices } from '../../src/wiring/generation-services.ts';
import { getServices } from '../../src/wiring/services.ts';
import type { Api } from '../support/api.ts';
import { longSpeechFixture, speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { findEverywhere } from '../support/storage.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

// A short lease (renewed every ~330 ms), so a deleted job's worker notices within a second.
process.env.NOTES_JOB_LEASE_SECONDS = '1';

let service: InProcessService;
let api: Api;
let accountId: string;

beforeAll(async () => {
  // Workers on this thread: tests gate their speech synthesizer.
  service = await startInProcess({ workersInProcess: true });
  api = service.api;
  accountId = String((await api('GET', '/v1/account')).body.account_id);
});
afterAll(() => service?.stop());

async function transcribedNote(): Promise<string> {
  const { file, contentType } = await speechFixture('slt', 'wav');
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, file, contentType);
  expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
  return noteId;
}

async function waitUntil(check: () => Promise<boolean>, what: string, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

/** Live processes (zombies count as ended) whose command line names `path`. */
function processesUsing(path: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(path) && !line.trim().startsWith('Z'));
}

const workDirIsEmpty = async () =>
  (await readdir(join(service.dataDir, 'work')).catch(() => [])).length === 0;

describe('stored results are not trusted blindly', () => {
  it.each([
    ['damaged', (key: string) => getServices().blobs.putJson(key, 'not a transcript')],
    ['missing', (key: string) => getServices().blobs.delete(key)],
  ])(
    'a %s transcript fails its job with a detail, and a new submission recovers the note',
    async (_, spoil) => {
      const noteId = await transcribedNote();
      await spoil(objectKeys.transcription(accountId, noteId));

      const read = await api('GET', `/v1/notes/${noteId}/transcription`);
      expect(read.status).toBe(409);
      expect(read.body).toMatchObject({ status: 'failed', note_id: noteId });
      expect(read.body.detail).toMatch(/could not be read.*Submit the note again/);
      const note = await api('GET', `/v1/notes/${noteId}`);
      expect(note.status).toBe(200);
      expect(note.body.transcription).toBeNull();
      expect(note.body.transcription_job).toMatchObject({ status: 'failed' });

      const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
        body: { title: 'again', content_type: 'audio/wav', size_bytes: 1 },
      });
      expect(again.status).toBe(202);
      expect(again.body.upload).toBeUndefined();
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status).toBe(200);
      expect(String(final.body.full_text).length).toBeGreaterThan(0);
    },
  );

  it('damaged Insights fail their job with a detail, and generateInsights makes them again', async () => {
    const noteId = await transcribedNote();
    await api('POST', `/v1/notes/${noteId}/insights`);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final.status).toBe(200);
    await getServices().blobs.putJson(objectKeys.insights(accountId, noteId), { summary: 42 });

    const read = await api('GET', `/v1/notes/${noteId}/insights`);
    expect(read.status).toBe(409);
    expect(read.body.detail).toMatch(/Insights could not be read.*generateInsights/);
    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final.status).toBe(200);
  });

  it('a podcast whose audio is gone fails its job with a detail, and asking again makes it again', async () => {
    const noteId = await transcribedNote();
    const path = `/v1/notes/${noteId}/artifacts/podcast`;
    await api('POST', path, { body: {} });
    expect((await pollUntilDone(api, path)).final.status).toBe(200);
    await getServices().blobs.delete(objectKeys.podcastAudio(accountId, noteId));

    const read = await api('GET', path);
    expect(read.status).toBe(409);
    expect(read.body.detail).toMatch(/artifact could not be read/);
    expect((await api('POST', path, { body: {} })).status).toBe(202);
    const { final } = await pollUntilDone(api, path);
    expect(final.status).toBe(200);
    const url = (final.body.content as { audio: { url: string } }).audio.url;
    expect((await fetch(url)).status).toBe(200);
  });
});

describe('deleting a note or its results stops the work running for it', () => {
  it('deleting a note while it is recognised leaves no object, no item and no temporary file', async () => {
    const { file, contentType } = await longSpeechFixture();
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, contentType);
    await waitUntil(
      async () => (await api('GET', `/v1/notes/${noteId}/transcription`)).body.status === 'processing',
      'the recording is being recognised',
    );
    expect(await workDirIsEmpty()).toBe(false);

    expect((await api('DELETE', `/v1/notes/${noteId}`)).status).toBe(204);
    await waitUntil(workDirIsEmpty, 'the worker removed its temporary files', 15_000);
    // Its engine stopped: no decoder or recogniser still reads from the work folder.
    await waitUntil(
      async () => processesUsing(join(service.dataDir, 'work')).length === 0,
      'the engine stopped',
      5_000,
    );
    // Long enough for a worker that did not stop to write its transcript.
    await sleep(3_000);
    expect(await findEverywhere(service.runtime, noteId)).toEqual({ items: [], objects: [] });
  });

  it('deleting a transcription while its podcast is voiced leaves no podcast and no temporary file', async () => {
    const noteId = await transcribedNote();
    const services = getGenerationServices();
    const flite = services.voices;
    let voicing = false;
    let deleted: () => void = () => undefined;
    const afterDeletion = new Promise<void>((done) => {
      deleted = done;
    });
    // The real flite voices, started only once the test has deleted the transcription, so the
    // deletion falls in the middle of synthesis whatever the machine's speed.
    const gated: SpeechSynthesizer = {
      name: flite.name,
      hostVoices: (language) => flite.hostVoices(language),
      async synthesize(lines, outputPath, signal) {
        voicing = true;
        await afterDeletion;
        return flite.synthesize(lines, outputPath, signal);
      },
    };
    Object.assign(services, { voices: gated });
    try {
      await api('POST', `/v1/notes/${noteId}/artifacts/podcast`, { body: {} });
      await waitUntil(async () => voicing, 'the podcast is being voiced');
      expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
      deleted();
      await waitUntil(workDirIsEmpty, 'the worker removed its temporary files', 15_000);
      await sleep(3_000);
    } finally {
      Object.assign(services, { voices: flite });
    }
    const { objects } = await findEverywhere(service.runtime, noteId);
    expect(objects.map((key) => key.split(`${noteId}/`)[1])).toEqual(['audio']);
    expect((await api('GET', `/v1/notes/${noteId}/artifacts/podcast`)).status).toBe(404);
  });
});

describe('start-up recovery', () => {
  it(`gives up a run interrupted ${MAX_INTERRUPTIONS} times, with a detail, but not one retried or re-requested as often`, async () => {
    const noteId = await transcribedNote();
    const deps = getServices();
    const now = Date.now();
    const job = {
      account_id: accountId,
      note_id: noteId,
      kind: 'insights' as const,
      status: 'processing' as const,
      stage: 'generating',
      attempts: MAX_INTERRUPTIONS + 3,
      created_at: now,
      updated_at: now,
      detail: null,
      lease_expires_at: now - 1,
    };
    // Interrupted as often as allowed: given up.
    const gaveUp = { ...job, interruptions: MAX_INTERRUPTIONS - 1 };
    expect((await deps.notes.createJobIfAbsent(gaveUp)).created).toBe(true);
    expect(await resumeJob(deps, gaveUp)).toBe('failed');
    const read = await api('GET', `/v1/notes/${noteId}/insights`);
    expect(read.status).toBe(409);
    expect(read.body.detail).toMatch(/interrupted 5 times/);
    // Many attempts (retries, requests again) but few interruptions: resumed, and it completes.
    const retried = { ...job, kind: 'artifact:epiphany' as const, language: 'en', interruptions: 1 };
    expect((await deps.notes.createJobIfAbsent(retried)).created).toBe(true);
    expect(await resumeJob(deps, retried)).toBe('requeued');
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/artifacts/epiphany`)).final.status).toBe(200);
  });
});

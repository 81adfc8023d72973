import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, client } from '../support/api.ts';
import { type InjectedDiskFault, injectDatabaseDiskFaults } from '../support/database-disk-full.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { uploadTargetFor } from '../support/storage-requests.ts';
import { canMountTmpfs } from '../support/tmpfs.ts';
import { pollUntilDone } from '../support/transcribe.ts';

/**
 * A full disk answers the request with a clear 507 and leaves nothing half-written; the service stays
 * up and works again once space is freed. Shown twice: with a real small file system that fills up
 * (a tmpfs mount, where this machine allows mounting) and with ENOSPC injected into the database's
 * storage layer (LevelDB under dynalite), which runs everywhere.
 */

const submission = { title: 'Full disk', content_type: 'audio/wav', size_bytes: 1000 };

/** What every scenario checks, whichever way the disk filled up. */
async function expectCleanRefusalsWhileFull(api: Api, existingNoteId: string): Promise<string> {
  const noteId = randomUUID();
  const refused = await api('POST', `/v1/notes/${noteId}/transcription`, { body: submission });
  expect(refused.status).toBe(507);
  expect(refused.body.detail).toMatch(/run out of storage space, so nothing was saved/);
  const renamed = await api('PATCH', `/v1/notes/${existingNoteId}`, { body: { title: 'Renamed' } });
  expect(renamed.status).toBe(507);

  // Still up; nothing half-written: no note without its job, the rename did not happen.
  expect((await api('GET', '/v1/account')).status).toBe(200);
  expect((await api('GET', `/v1/notes/${noteId}`)).status).toBe(404);
  const list = await api('GET', '/v1/notes');
  expect(list.status).toBe(200);
  for (const note of list.body.notes as Array<{ note_id: string; transcription_status?: string }>) {
    expect(note.note_id).not.toBe(noteId);
  }
  expect((await api('GET', `/v1/notes/${existingNoteId}`)).body.title).toBe(submission.title);
  return noteId;
}

async function expectWorkingAgain(api: Api, noteId: string): Promise<void> {
  const accepted = await api('POST', `/v1/notes/${noteId}/transcription`, { body: submission });
  expect(accepted.status).toBe(202);
  expect(accepted.body).toMatchObject({ status: 'queued', stage: 'awaiting_upload' });
  expect((await api('GET', `/v1/notes/${noteId}`)).body.transcription_job).toMatchObject({
    status: 'queued',
  });
}

describe('ENOSPC injected into the database storage layer', () => {
  let service: InProcessService;
  let injected: InjectedDiskFault;

  beforeAll(async () => {
    // Below dynalite and its fault guard: LevelDB's own write methods fail as on a full disk.
    injected = injectDatabaseDiskFaults();
    // The patch above is this thread's `level`: the emulators must run here, not in their thread.
    service = await startInProcess({ emulatorsInProcess: true });
  });
  afterAll(() => service?.stop());

  it('answers 507 with a detail, writes nothing, stays up, and works again once space is freed', async () => {
    const existing = randomUUID();
    expect(
      (await service.api('POST', `/v1/notes/${existing}/transcription`, { body: submission })).status,
    ).toBe(202);
    injected.full = 'ENOSPC';
    let refusedId: string;
    try {
      refusedId = await expectCleanRefusalsWhileFull(service.api, existing);
    } finally {
      injected.full = false;
    }
    await expectWorkingAgain(service.api, refusedId);
  });

  it('answers OAuth registration and authorization 507 like REST, with what happened, while the disk is full', async () => {
    const base = service.runtime.apiUrl;
    const registration = {
      client_name: 'Full disk client',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    const register = () =>
      fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registration),
      });
    const { client_id: clientId } = (await (await register()).json()) as { client_id: string };
    const authorize = new URL(`${base}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: registration.redirect_uris[0] ?? '',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      scope: 'notes:read',
      state: 'full-disk',
      resource: `${base}/mcp`,
    })) {
      authorize.searchParams.set(name, value);
    }
    injected.full = 'ENOSPC';
    try {
      const refused = await register();
      expect(refused.status).toBe(507);
      expect(await refused.json()).toMatchObject({
        error: 'temporarily_unavailable',
        error_description: expect.stringMatching(/run out of storage space, so nothing was saved/),
      });
      const page = await fetch(authorize, { redirect: 'manual' });
      expect(page.status).toBe(507);
      expect(await page.text()).toContain('run out of storage space');
    } finally {
      injected.full = false;
    }
    expect((await register()).status).toBe(201);
  });

  it('answers 503 with a detail while the data directory cannot be written, and writes nothing', async () => {
    const noteId = randomUUID();
    injected.full = 'EACCES';
    try {
      const refused = await service.api('POST', `/v1/notes/${noteId}/transcription`, { body: submission });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatch(/cannot write its data right now, so nothing was saved/);
      expect((await service.api('GET', `/v1/notes/${noteId}`)).status).toBe(404);
    } finally {
      injected.full = false;
    }
    await expectWorkingAgain(service.api, noteId);
  });
});

const mountable = canMountTmpfs();

describe('a data directory on a small file system that fills up', () => {
  let mountPoint: string;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    if (!mountable) return;
    mountPoint = await mkdtemp(join(tmpdir(), 'notes-small-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mountPoint]);
    await mkdir(join(mountPoint, 'data'));
    // A short job lease: work that waits for space comes back after the lease (src/workers/storage-wait.ts).
    service = await startService({
      dataDir: join(mountPoint, 'data'),
      env: { NOTES_JOB_LEASE_SECONDS: '2' },
    });
    api = client(service.baseUrl, service.apiKey);
  });
  afterAll(async () => {
    if (!mountable) return;
    await service?.stop();
    execFileSync('umount', [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  });

  it.skipIf(!mountable)(
    'answers 507 with a detail, writes nothing, stays up, and works again once space is freed',
    async () => {
      const existing = randomUUID();
      expect((await api('POST', `/v1/notes/${existing}/transcription`, { body: submission })).status).toBe(
        202,
      );
      const filler = join(mountPoint, 'filler');
      await fillUp(filler);
      const refusedId = await expectCleanRefusalsWhileFull(api, existing);
      // Readiness says so, without credentials; liveness does not (the process is fine).
      const full = await fetch(`${service.baseUrl}/readyz`);
      expect(full.status).toBe(503);
      expect(((await full.json()) as { checks: Record<string, string> }).checks.disk).toMatch(
        /below the \d+ MB reserve: writes are refused/,
      );
      expect((await fetch(`${service.baseUrl}/healthz`)).status).toBe(200);
      await rm(filler);
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);
      await expectWorkingAgain(api, refusedId);
    },
  );

  it.skipIf(!mountable)(
    'takes an upload stored while the database is under its free-space reserve once space is freed, without a new upload',
    async () => {
      const { file, contentType } = await speechFixture('slt', 'wav');
      const audio = await readFile(file);
      const noteId = randomUUID();
      const target = await uploadTargetFor(api, noteId, audio.length, contentType);
      // Free space under the database's reserve, yet room for the recording: the object store takes
      // it, the database refuses to record it.
      const { bavail, bsize } = await statfs(mountPoint);
      const filler = join(mountPoint, 'filler');
      await writeFile(filler, Buffer.alloc(Number(bavail) * Number(bsize) - 3 * audio.length));
      try {
        const put = await fetch(target.url, { method: 'PUT', headers: target.headers, body: audio });
        expect(put.status).toBe(200);
        // The upload's event waits for space: the job still waits for its upload, which the note
        // cannot record; its message is put back (sent again, delayed) rather than dead-lettered.
        // Three waits: as many receives as its queue allows before the dead-letter queue.
        await waitForLines(service, /uploadReceived: storage is full; the work waits for space/g, 3);
        expect((await api('GET', `/v1/notes/${noteId}/transcription`)).body).toMatchObject({
          status: 'queued',
          stage: 'awaiting_upload',
        });
      } finally {
        await rm(filler);
      }
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, { intervalMs: 500 });
      expect(final.status, JSON.stringify(final.body)).toBe(200);
      expect((await api('GET', `/v1/notes/${noteId}/audio`)).status).toBe(200);
    },
    240_000,
  );
});

/** Waits (bounded) until the service's output has `count` lines matching `pattern` (global). */
async function waitForLines(service: RunningService, pattern: RegExp, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((service.output().match(pattern) ?? []).length < count) {
    if (Date.now() > deadline) throw new Error(`the service logged ${pattern} fewer than ${count} times`);
    await sleep(200);
  }
}

/** Writes until the file system has no space left. */
async function fillUp(path: string): Promise<void> {
  const file = await open(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024);
  try {
    for (;;) await file.write(chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await file.close().catch(() => undefined);
  }
}

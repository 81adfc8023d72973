import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { canMountTmpfs } from '../support/tmpfs.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';
import { waitUntil } from '../support/wait.ts';

/**
 * `npm start` with no engine configured (`auto`) when Whisper's model cannot be had: offline, a
 * mirror serving the wrong bytes, a full disk. The service runs on pocketsphinx and says so, in the
 * console, in /readyz and on every transcript; `whisper` set explicitly is not ready instead.
 */

/** A model host that answers every file with `bytes` (never the published model). */
async function modelHost(bytes: Buffer): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
    response.end(bytes);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/models`, server };
}

/** An address where nothing listens: what an offline machine's fetch meets. */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return `http://127.0.0.1:${port}/models`;
}

async function readyz(service: RunningService) {
  const response = await fetch(`${service.baseUrl}/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as { checks: Record<string, string>; speech: Record<string, unknown> },
  };
}

async function settled(service: RunningService) {
  let last = await readyz(service);
  await waitUntil(async () => {
    last = await readyz(service);
    return last.body.speech.state === 'unavailable' || last.body.speech.state === 'ready';
  }, 'the Whisper model to be ready or unavailable');
  return last;
}

describe('offline, with the default engine', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({
      env: { NOTES_SPEECH_ENGINE: 'auto', NOTES_WHISPER_MODEL_URL: await closedAddress() },
    });
  }, 120_000);

  afterAll(() => service?.stop());

  it('stays ready, names pocketsphinx and why in /readyz, and says so in the console', async () => {
    const { status, body } = await settled(service);
    expect(status).toBe(200);
    expect(body.checks.speech).toBe('ok');
    expect(body.speech).toMatchObject({
      setting: 'auto',
      engine: 'pocketsphinx',
      state: 'unavailable',
      model: 'base.en',
    });
    expect(String(body.speech.reason)).toMatch(
      /connect this machine to the internet|NOTES_WHISPER_MODEL_URL/,
    );
    await waitUntil(
      () => /Whisper base\.en is unavailable: .*Transcribing with pocketsphinx/.test(service.output()),
      'the console line on the fallback',
      10_000,
    );
  });

  it('transcribes with pocketsphinx, and the transcript says why and how to get Whisper', async () => {
    const api = client(service.baseUrl, service.apiKey);
    const noteId = randomUUID();
    const fixture = await speechFixture('slt', 'wav');
    await submitAndUpload(api, noteId, fixture.file, fixture.contentType, 'Offline fallback');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    const transcript = final.body as {
      engine: string;
      full_text: string;
      notice: { code: string; detail: string };
    };
    expect(transcript.engine).toBe('local-pocketsphinx');
    expect(transcript.full_text.length).toBeGreaterThan(20);
    expect(transcript.notice.code).toBe('engine_fallback');
    expect(transcript.notice.detail).toMatch(/^Whisper \(base\.en\) is unavailable: /);
    expect(transcript.notice.detail).toMatch(/made by pocketsphinx/);
    expect(transcript.notice.detail).toMatch(/To get Whisper: .*npm run models -- fetch base\.en/);
  });
});

describe('a mirror that serves other bytes than the published model', () => {
  let service: RunningService;
  let host: { url: string; server: Server };

  beforeAll(async () => {
    host = await modelHost(randomBytes(64 * 1024));
    service = await startService({ env: { NOTES_SPEECH_ENGINE: 'auto', NOTES_WHISPER_MODEL_URL: host.url } });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    host?.server.close();
  });

  it('refuses the file (checksum), keeps none of it, and falls back with the reason', async () => {
    const { body } = await settled(service);
    expect(body.speech).toMatchObject({ engine: 'pocketsphinx', state: 'unavailable' });
    expect(String(body.speech.reason)).toMatch(/SHA-256|checksum/i);
    const models = await readdir(join(service.dataDir, 'models'));
    expect(models.filter((file) => file.startsWith('ggml-'))).toEqual([]);
  });
});

describe.skipIf(!canMountTmpfs())('a disk too full for the model', () => {
  let service: RunningService;
  let host: { url: string; server: Server };
  let small: string;

  beforeAll(async () => {
    small = await mkdtemp(join(tmpdir(), 'notes-models-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
    host = await modelHost(randomBytes(4 * 1024 * 1024));
    service = await startService({
      env: { NOTES_SPEECH_ENGINE: 'auto', NOTES_WHISPER_MODEL_URL: host.url, NOTES_WHISPER_MODEL_DIR: small },
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    host?.server.close();
    if (small) {
      execFileSync('umount', [small]);
      await rm(small, { recursive: true, force: true });
    }
  });

  it('falls back to pocketsphinx, saying to free disk space', async () => {
    const { status, body } = await settled(service);
    expect(status).toBe(200);
    expect(body.speech).toMatchObject({ engine: 'pocketsphinx', state: 'unavailable' });
    expect(String(body.speech.reason)).toMatch(/free disk space/);
  });
});

describe('Whisper configured explicitly, offline', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({
      env: { NOTES_SPEECH_ENGINE: 'whisper', NOTES_WHISPER_MODEL_URL: await closedAddress() },
    });
  }, 120_000);

  afterAll(() => service?.stop());

  it('is not ready, and says why, instead of switching engines', async () => {
    const { status, body } = await settled(service);
    expect(status).toBe(503);
    expect(body.checks.speech).toMatch(/^Whisper \(NOTES_SPEECH_ENGINE=whisper\) cannot run: /);
    expect(body.speech).toMatchObject({ setting: 'whisper', engine: 'whisper', state: 'unavailable' });
    await waitUntil(
      () => /Whisper base\.en is unavailable: .*never switches engines/.test(service.output()),
      'the console line saying Whisper is not ready',
      10_000,
    );
  });
});

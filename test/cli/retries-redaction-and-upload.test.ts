import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScriptedReply as Reply,
  type ScriptedServer,
  startScriptedServer,
} from '../support/scripted-server.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

const KEY = 'svc_sk_scripted_key_that_must_stay_secret';
const NOTE = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';
const ACCOUNT = {
  account_id: '6a1e2f3d-4c5b-4a69-8b7c-0d1e2f3a4b5c',
  name: "Ada's workspace",
  created_at: 1767000000000,
  api_key: { key_id: 'key_01JH3K8Z9QW4', created_at: 1767000000000 },
};
const unavailable: Reply = { status: 503, body: { detail: 'Service Unavailable' } };

const servers: ScriptedServer<unknown>[] = [];
async function scripted(reply: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer<unknown>> {
  const server = await startScriptedServer<unknown>(reply);
  servers.push(server);
  return server;
}
afterAll(() => Promise.all(servers.map((server) => server.close())));

describe.concurrent('transient failures are retried with backoff', () => {
  it('succeeds when GET /v1/account answers 503 twice, then 200', async () => {
    const replies: Reply[] = [unavailable, unavailable, { status: 200, body: ACCOUNT }];
    const server = await scripted(() => replies.shift() ?? unavailable);
    const result = await runCli(['auth', 'status'], { NOTES_BASE_URL: server.baseUrl, NOTES_API_KEY: KEY });
    expect(result.code, describeRun(result)).toBe(0);
    expect(server.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /v1/account',
      'GET /v1/account',
      'GET /v1/account',
    ]);
    expect(result.stderr).toMatch(/HTTP 503.*retrying in \d+\.\d s \(attempt 2 of 5\)/);
    expect(stdoutJson(result)).toMatchObject({ account_id: ACCOUNT.account_id, key_id: 'key_01JH3K8Z9QW4' });
  });

  it('exits 8 when the service answers 503 every time, after a bounded number of attempts', async () => {
    const server = await scripted(() => unavailable);
    const started = Date.now();
    const result = await runCli(['auth', 'status'], { NOTES_BASE_URL: server.baseUrl, NOTES_API_KEY: KEY });
    expect(result.code, describeRun(result)).toBe(8);
    expect(server.received).toHaveLength(5);
    expect(result.stderr).toMatch(/service unavailable after 5 attempts: HTTP 503/);
    expect(result.stdout).toBe('');
    // Exponential backoff with jitter: 0.25-0.5 + 0.5-1 + 1-2 + 2-4 s between the attempts.
    expect(Date.now() - started).toBeGreaterThan(3_700);
  });

  it('exits 8 when nothing answers at NOTES_BASE_URL', async () => {
    const port = await freePort();
    const result = await runCli(['notes', 'list'], {
      NOTES_BASE_URL: `http://127.0.0.1:${port}`,
      NOTES_API_KEY: KEY,
    });
    expect(result.code, describeRun(result)).toBe(8);
    expect(result.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });
});

describe('the API key', () => {
  it('is sent as a bearer token and never printed, even when the server echoes it in an error', async () => {
    const server = await scripted(() => ({ status: 401, body: { detail: `Unknown API key ${KEY}` } }));
    const result = await runCli(['auth', 'status'], { NOTES_BASE_URL: server.baseUrl, NOTES_API_KEY: KEY });
    expect(result.code, describeRun(result)).toBe(3);
    expect(server.received[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(result.stderr).toMatch(/HTTP 401/);
    expect(result.stderr).toContain('[redacted]');
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
  });
});

describe('transcribe uploads the file to the presigned URL', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'notes-cli-upload-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('PUTs exactly the bytes with exactly the returned headers and no key, showing percentages on stderr', async () => {
    const file = join(dir, 'Long meeting.mp3');
    const audio = randomBytes(3 * 1024 * 1024 + 123);
    await writeFile(file, audio);
    const job = {
      note_id: NOTE,
      kind: 'transcription',
      status: 'queued',
      stage: 'awaiting_upload',
      title: 'Long meeting',
      created_at: 1,
      updated_at: 1,
      attempts: 0,
    };
    const server = await scripted((request) => {
      if (request.method === 'POST') {
        return {
          status: 202,
          body: {
            ...job,
            upload: {
              url: `${server.baseUrl}/bucket/audio?X-Amz-Signature=abc`,
              method: 'PUT',
              headers: { 'Content-Type': 'audio/mpeg', 'x-amz-meta-note': NOTE },
              expires_at: Date.now() + 3_600_000,
            },
          },
        };
      }
      if (request.method === 'PUT') return { status: 200 };
      return { status: 202, body: { ...job, stage: 'queued' } };
    });

    const result = await runCli(['transcribe', file, '--note-id', NOTE, '--speakers', '2'], {
      NOTES_BASE_URL: server.baseUrl,
      NOTES_API_KEY: KEY,
    });
    expect(result.code, describeRun(result)).toBe(0);
    const [submit, put, poll] = server.received;
    expect(server.received).toHaveLength(3);
    expect(submit?.url).toBe(`/v1/notes/${NOTE}/transcription`);
    expect(submit?.body).toEqual({
      title: 'Long meeting',
      content_type: 'audio/mpeg',
      size_bytes: audio.length,
      speakers_expected: 2,
    });
    expect(put?.url).toBe('/bucket/audio?X-Amz-Signature=abc');
    expect(put?.headers['content-type']).toBe('audio/mpeg');
    expect(put?.headers['x-amz-meta-note']).toBe(NOTE);
    expect(put?.headers['content-length']).toBe(String(audio.length));
    expect(put?.headers.authorization).toBeUndefined();
    expect(put?.headers['transfer-encoding']).toBeUndefined();
    expect(put?.raw.equals(audio)).toBe(true);
    expect(poll?.method).toBe('GET');

    const percentages = [...result.stderr.matchAll(/Uploading Long meeting\.mp3: +(\d+)%/g)].map((m) =>
      Number(m[1]),
    );
    expect(percentages.length).toBeGreaterThanOrEqual(3);
    expect(percentages.at(-1)).toBe(100);
    expect(result.stderr).not.toContain('X-Amz-Signature');
    // Without --wait: the job status, said not to be a result.
    expect(stdoutJson(result)).toMatchObject({ note_id: NOTE, status: 'queued' });
    expect(result.stderr).toMatch(/Not a result yet.*notes transcription get/);
  });
});

describe('an upload URL stores the recording once (If-None-Match: *)', () => {
  let file: string;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'notes-cli-412-'));
    file = join(dir, 'standup.wav');
    await writeFile(file, randomBytes(4096));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const preconditionFailed: Reply = {
    status: 412,
    headers: { 'content-type': 'application/xml' },
    body: '<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
  };

  /** A service whose upload answers `putReplies` in turn; the job is queued once uploaded. */
  async function serviceWithUploads(putReplies: Reply[]) {
    const job = {
      note_id: NOTE,
      kind: 'transcription',
      status: 'queued',
      title: 'standup',
      created_at: 1,
      updated_at: 1,
      attempts: 0,
    };
    const server = await scripted((request) => {
      if (request.method === 'POST') {
        return {
          status: 202,
          body: {
            ...job,
            stage: 'awaiting_upload',
            upload: {
              url: `${server.baseUrl}/bucket/audio?X-Amz-Signature=abc`,
              method: 'PUT',
              headers: { 'Content-Type': 'audio/wav', 'If-None-Match': '*' },
              expires_at: Date.now() + 3_600_000,
            },
          },
        };
      }
      if (request.method === 'PUT') return putReplies.shift() ?? unavailable;
      return { status: 202, body: { ...job, stage: 'queued' } };
    });
    return server;
  }

  it('counts a 412 on a retried upload as done: the first attempt was stored before its answer was lost', async () => {
    const server = await serviceWithUploads([{ status: 200, drop: true }, preconditionFailed]);
    const result = await runCli(['transcribe', file, '--note-id', NOTE], {
      NOTES_BASE_URL: server.baseUrl,
      NOTES_API_KEY: KEY,
    });
    expect(result.code, describeRun(result)).toBe(0);
    const puts = server.received.filter((request) => request.method === 'PUT');
    expect(puts).toHaveLength(2);
    expect(puts.map((put) => put.headers['if-none-match'])).toEqual(['*', '*']);
    expect(stdoutJson(result)).toMatchObject({ note_id: NOTE, status: 'queued' });
  });

  it('stops with a clear message when the first upload is refused with 412: the note already has its recording', async () => {
    const server = await serviceWithUploads([preconditionFailed]);
    const result = await runCli(['transcribe', file, '--note-id', NOTE], {
      NOTES_BASE_URL: server.baseUrl,
      NOTES_API_KEY: KEY,
    });
    expect(result.code, describeRun(result)).toBe(6);
    expect(server.received.filter((request) => request.method === 'PUT')).toHaveLength(1);
    expect(result.stderr).toContain('this note already has its recording');
    expect(result.stderr).toContain('submit a different recording as a new note');
    expect(result.stderr).not.toContain('X-Amz-Signature');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

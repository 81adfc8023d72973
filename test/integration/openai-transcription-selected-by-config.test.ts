import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * Bring-your-own recogniser, chosen by configuration only: the local runtime started with
 * NOTES_SPEECH_ENGINE=openai sends the recording to a server speaking OpenAI's
 * /v1/audio/transcriptions (here a local HTTP server answering a documented verbose_json document).
 */
const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'openai', 'verbose-json-words.json');
let whisper: Server;
let requests: Array<{ path: string; bytes: number; authorization: string | undefined }>;
let service: RunningService;
let api: Api;

beforeAll(async () => {
  requests = [];
  const body = await readFile(FIXTURE, 'utf8');
  whisper = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      requests.push({ path: req.url ?? '', bytes, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((done) => whisper.listen(0, '127.0.0.1', done));
  const port = (whisper.address() as AddressInfo).port;
  service = await startService({
    env: {
      NOTES_SPEECH_ENGINE: 'openai',
      NOTES_OPENAI_BASE_URL: `http://127.0.0.1:${port}`,
      NOTES_OPENAI_API_KEY: 'sk-test-not-a-real-key',
      NOTES_OPENAI_MODEL: 'Systran/faster-whisper-small',
    },
  });
  api = client(service.baseUrl, service.apiKey);
});
afterAll(async () => {
  await service?.stop();
  whisper?.close();
});

describe('an OpenAI-compatible recogniser selected by configuration', () => {
  it('receives the uploaded recording and its words become the transcript', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, contentType);
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, { deadlineMs: 60_000 });
    expect(final.status).toBe(200);
    expect(final.body.engine).toBe('openai-compatible:Systran/faster-whisper-small');
    const expected = JSON.parse(await readFile(FIXTURE, 'utf8')) as { words: Array<{ word: string }> };
    const firstWord = (expected.words[0]?.word ?? '').trim().toLowerCase();
    expect(String(final.body.full_text).toLowerCase()).toContain(firstWord);

    expect(requests).toHaveLength(1);
    expect(requests[0]?.path).toBe('/v1/audio/transcriptions');
    expect(requests[0]?.authorization).toBe('Bearer sk-test-not-a-real-key');
    expect(requests[0]?.bytes).toBeGreaterThan((await readFile(file)).length);
    expect(service.output()).not.toContain('sk-test-not-a-real-key');
  });

  it('refuses a MOV or MKV at submission with 415 naming what it accepts, since the file goes to the server as uploaded', async () => {
    for (const contentType of ['video/quicktime', 'video/x-matroska']) {
      const submitted = await api('POST', `/v1/notes/${randomUUID()}/transcription`, {
        body: { title: 'phone video', content_type: contentType, size_bytes: 1000 },
      });
      expect(submitted.status).toBe(415);
      expect(submitted.body.detail).toContain(`cannot transcribe ${contentType} recordings`);
      expect(submitted.body.detail).toMatch(/accepts audio\/wav, .*video\/mp4, video\/webm\. /);
    }
    expect(requests).toHaveLength(1);
  });
});

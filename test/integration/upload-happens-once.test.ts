import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { readLocalCredentials } from '../../src/local/local-credentials.ts';
import type { Api } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import {
  accountIdOf,
  errorCode,
  sha256,
  storageClient,
  storedBytes,
  uploadTargetFor,
} from '../support/storage-requests.ts';
import { pollUntilDone, submitAndUpload, type UploadTarget } from '../support/transcribe.ts';

let service: InProcessService;
let api: Api;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  service = await startInProcess();
  api = service.api;
  s3 = storageClient(service.runtime.storageUrl, await readLocalCredentials(service.dataDir));
  bucket = service.runtime.info.bucket_name;
});

afterAll(async () => {
  s3?.destroy();
  await service?.stop();
});

describe('an upload can happen once', () => {
  it('refuses a second PUT to a used upload URL with 412, and the recording, transcript and audio metadata stay', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    const submitted = await submitAndUpload(api, noteId, file, contentType);
    const target = submitted.body.upload as UploadTarget;
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status).toBe(200);
    const noteBefore = await api('GET', `/v1/notes/${noteId}`);
    const audioKey = objectKeys.audio(await accountIdOf(api), noteId);
    const original = await readFile(file);

    // Same length and type as signed, other bytes: only the precondition stands in the way.
    const replacement = randomBytes(original.length);
    for (const body of [replacement, original]) {
      const again = await fetch(target.url, { method: 'PUT', headers: target.headers, body });
      expect(again.status).toBe(412);
      expect(await errorCode(again)).toBe('PreconditionFailed');
    }

    // Long enough for an upload event, had one been sent, to reach the worker.
    await sleep(3000);
    expect(sha256((await storedBytes(s3, bucket, audioKey)) ?? '')).toBe(sha256(original));
    const noteAfter = await api('GET', `/v1/notes/${noteId}`);
    expect(noteAfter.body.audio).toEqual(noteBefore.body.audio);
    expect(noteAfter.body.transcription_job).toEqual(noteBefore.body.transcription_job);
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).body).toEqual(final.body);
  });

  it('stores exactly one recording when two uploads to one URL race', async () => {
    const noteId = randomUUID();
    const [first, second] = [randomBytes(256 * 1024), randomBytes(256 * 1024)];
    const target = await uploadTargetFor(api, noteId, first.length);

    const responses = await Promise.all(
      [first, second].map((body) => fetch(target.url, { method: 'PUT', headers: target.headers, body })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 412]);
    const winner = responses[0]?.status === 200 ? first : second;
    const stored = await storedBytes(s3, bucket, objectKeys.audio(await accountIdOf(api), noteId));
    expect(sha256(stored ?? '')).toBe(sha256(winner));
  });
});

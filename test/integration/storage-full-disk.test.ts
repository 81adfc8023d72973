import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/adapters/s3/blob-store.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { type Emulators, startEmulators } from '../../src/local/emulators.ts';
import { readLocalCredentials } from '../../src/local/local-credentials.ts';
import { client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import {
  accountIdOf,
  errorCode,
  putBytes,
  sha256,
  storageClient,
  storedBytes,
  uploadTargetFor,
} from '../support/storage-requests.ts';
import { pollUntilDone } from '../support/transcribe.ts';

const enospc = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });

describe('a full disk while storing an object (injected ENOSPC from the storage layer)', () => {
  const WRITABLE_BYTES = 64 * 1024;
  let dataDir: string;
  let emulators: Emulators;
  let s3: S3Client;
  let diskFull = false;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'notes-full-disk-'));
    emulators = await startEmulators({
      dataDir,
      storagePort: 0,
      queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
      log: () => undefined,
      // Writes the first 64 KiB of a staged file for real, then fails as a full disk does.
      openStagingFile: (path) => {
        const file = createWriteStream(path, { flags: 'wx' });
        if (!diskFull) return file;
        let written = 0;
        return new Writable({
          write(chunk: Buffer, _encoding, callback) {
            written += chunk.length;
            if (written > WRITABLE_BYTES) file.end(() => callback(enospc()));
            else file.write(chunk, callback);
          },
          final: (callback) => file.end(callback),
        });
      },
    });
    s3 = storageClient(emulators.endpoints.s3, emulators.credentials);
  });

  afterAll(async () => {
    s3?.destroy();
    await emulators?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 507 InsufficientStorage, keeps serving, keeps the previous object whole, and stores again once there is space', async () => {
    const bucket = emulators.bucketName;
    const key = `accounts/${randomUUID()}/notes/${randomUUID()}/transcription.json`;
    const previous = randomBytes(200 * 1024);
    await putBytes(s3, bucket, key, previous);

    diskFull = true;
    const replacement = randomBytes(200 * 1024);
    await expect(
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: replacement })),
    ).rejects.toMatchObject({ name: 'InsufficientStorage', $metadata: { httpStatusCode: 507 } });

    // The adapter the workers store files with, and a presigned upload as browsers send it.
    const localFile = join(dataDir, 'upload.bin');
    await writeFile(localFile, replacement);
    const blobs = new S3BlobStore(s3, bucket, 300);
    const fileKey = `accounts/${randomUUID()}/notes/${randomUUID()}/artifacts/podcast.mp3`;
    await expect(blobs.putFile(fileKey, localFile, 'audio/mpeg')).rejects.toMatchObject({
      name: 'InsufficientStorage',
    });
    const uploadKey = `accounts/${randomUUID()}/notes/${randomUUID()}/audio`;
    const target = await blobs.presignUpload(uploadKey, 'audio/wav', replacement.length);
    const upload = await fetch(target.url, { method: 'PUT', headers: target.headers, body: replacement });
    expect(upload.status).toBe(507);
    expect(await errorCode(upload)).toBe('InsufficientStorage');

    // Still serving, nothing half-written: the old object whole, no new objects, no staged leftovers.
    expect(sha256((await storedBytes(s3, bucket, key)) ?? '')).toBe(sha256(previous));
    expect(await storedBytes(s3, bucket, fileKey)).toBeNull();
    expect(await storedBytes(s3, bucket, uploadKey)).toBeNull();
    expect(await readdir(join(dataDir, 's3-staging'))).toEqual([]);

    diskFull = false;
    const retry = await fetch(target.url, { method: 'PUT', headers: target.headers, body: replacement });
    expect(retry.status).toBe(200);
    expect(sha256((await storedBytes(s3, bucket, uploadKey)) ?? '')).toBe(sha256(replacement));
    await putBytes(s3, bucket, key, replacement);
    expect(sha256((await storedBytes(s3, bucket, key)) ?? '')).toBe(sha256(replacement));
  });
});

/** Mounts a small tmpfs (root only); null with the reason when this machine does not allow it. */
function mountTmpfs(dir: string, size: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
  }
}

const mountPoint = await mkdtemp(join(tmpdir(), 'notes-tmpfs-'));
const mountRefused = mountTmpfs(mountPoint, '8m');
if (mountRefused) {
  console.warn(`storage-full-disk: skipping the tmpfs test, mount is not permitted here (${mountRefused})`);
  await rm(mountPoint, { recursive: true, force: true });
}

describe.skipIf(mountRefused !== null)(
  'a data directory on a small filesystem that fills up (8 MiB tmpfs)',
  () => {
    let service: RunningService;

    beforeAll(async () => {
      service = await startService({ dataDir: mountPoint });
    });

    afterAll(async () => {
      await service?.stop();
      execFileSync('umount', [mountPoint]);
      await rm(mountPoint, { recursive: true, force: true });
    });

    it('refuses the upload with 507 while full, stays up with nothing half-written, and transcribes once space is freed', async () => {
      const api = client(service.baseUrl, service.apiKey);
      const { file, contentType } = await speechFixture('slt', 'wav');
      const audio = await readFile(file);
      const noteId = randomUUID();
      const target = await uploadTargetFor(api, noteId, audio.length, contentType);

      const { bavail, bsize } = await statfs(mountPoint);
      const filler = join(mountPoint, 'filler.bin');
      await writeFile(filler, Buffer.alloc(Math.max(0, Number(bavail) * Number(bsize) - 256 * 1024)));

      const refused = await fetch(target.url, { method: 'PUT', headers: target.headers, body: audio });
      expect(refused.status).toBe(507);
      expect(await errorCode(refused)).toBe('InsufficientStorage');

      const waiting = await api('GET', `/v1/notes/${noteId}/transcription`);
      expect(waiting.status).toBe(202);
      expect(waiting.body).toMatchObject({ status: 'queued', stage: 'awaiting_upload' });
      const s3 = storageClient(service.info.endpoints.s3, await readLocalCredentials(service.dataDir));
      const audioKey = objectKeys.audio(await accountIdOf(api), noteId);
      expect(await storedBytes(s3, service.info.bucket_name, audioKey)).toBeNull();
      expect(await readdir(join(mountPoint, 's3-staging'))).toEqual([]);

      await rm(filler);
      const accepted = await fetch(target.url, { method: 'PUT', headers: target.headers, body: audio });
      expect(accepted.status).toBe(200);
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status).toBe(200);
      const { Body } = await s3.send(
        new GetObjectCommand({ Bucket: service.info.bucket_name, Key: audioKey }),
      );
      expect(sha256((await Body?.transformToByteArray()) ?? '')).toBe(sha256(audio));
      s3.destroy();
    });
  },
);

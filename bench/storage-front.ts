/**
 * What the object store's signature-checking front costs: the same uploads and reads against the
 * local runtime's object store (Signature V4 checks, staged writes, per-key lock) and against s3rver
 * alone (what the runtime used before, no checks), in the same run, in this process. Bounded: a fixed
 * number of requests of fixed sizes on loopback.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import S3rver from 's3rver';
import s3rverAccounts from 's3rver/lib/models/account.js';
import { type LocalCredentials, localAwsClientConfig } from '../src/adapters/aws-client-config.ts';
import { startEmulators } from '../src/local/emulators.ts';

const UPLOAD_BYTES = 32 * 1024 * 1024;
const UPLOADS = 6;
const SMALL_READS = 300;
const BUCKET = 'notes';

export interface StorageFrontRow {
  target: string;
  uploadMiBPerSecond: number;
  uploadMsMedian: number;
  smallGetMsP50: number;
  smallGetMsP99: number;
}

export async function storageFrontBench(): Promise<StorageFrontRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'notes-bench-storage-'));
  const emulators = await startEmulators({
    dataDir: join(dir, 'front'),
    storagePort: 0,
    queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
    log: () => undefined,
    // In this process, as s3rver alone is: the comparison is of the front, not of threads.
    inProcess: true,
  });
  const plain = await startPlainS3rver(join(dir, 'plain'), emulators.credentials);
  try {
    const body = randomBytes(UPLOAD_BYTES);
    return [
      await measure('front (SigV4 checked, staged)', emulators.endpoints.s3, emulators.credentials, body),
      await measure('s3rver alone (no checks)', plain.endpoint, emulators.credentials, body),
    ];
  } finally {
    await new Promise<void>((done) => plain.server.close(() => done()));
    await emulators.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(
  target: string,
  endpoint: string,
  credentials: LocalCredentials,
  body: Buffer,
): Promise<StorageFrontRow> {
  const s3 = new S3Client(localAwsClientConfig(endpoint, credentials));
  const uploadMs: number[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    // Presigned, as browsers and the CLI upload recordings; a new key each time.
    const url = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: BUCKET, Key: `bench/${i}/audio`, ContentLength: body.length }),
      { expiresIn: 300 },
    );
    const started = performance.now();
    const response = await fetch(url, { method: 'PUT', body });
    if (!response.ok) throw new Error(`${target}: upload answered ${response.status}`);
    uploadMs.push(performance.now() - started);
  }
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'bench/small.json', Body: randomBytes(1024) }));
  const readMs: number[] = [];
  for (let i = 0; i < SMALL_READS; i++) {
    const started = performance.now();
    const { Body } = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'bench/small.json' }));
    await Body?.transformToByteArray();
    readMs.push(performance.now() - started);
  }
  s3.destroy();
  const totalSeconds = uploadMs.reduce((sum, ms) => sum + ms, 0) / 1000;
  return {
    target,
    uploadMiBPerSecond: round((UPLOADS * body.length) / 2 ** 20 / totalSeconds),
    uploadMsMedian: round(percentile(uploadMs, 0.5)),
    smallGetMsP50: round(percentile(readMs, 0.5)),
    smallGetMsP99: round(percentile(readMs, 0.99)),
  };
}

async function startPlainS3rver(
  directory: string,
  credentials: LocalCredentials,
): Promise<{ server: Server; endpoint: string }> {
  s3rverAccounts.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const s3rver = new S3rver({
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: BUCKET }],
  });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

const round = (value: number) => Math.round(value * 10) / 10;

export function storageFrontTable(rows: StorageFrontRow[]): string {
  const lines = [
    `| object store | upload ${UPLOAD_BYTES / 2 ** 20} MiB (MiB/s) | upload median (ms) | 1 KiB GET p50 (ms) | p99 (ms) |`,
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.target} | ${row.uploadMiBPerSecond} | ${row.uploadMsMedian} | ${row.smallGetMsP50} | ${row.smallGetMsP99} |`,
    ),
  ];
  return lines.join('\n');
}

import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { localAwsClientConfig } from '../adapters/aws-client-config.ts';
import { loadConfigFrom } from '../config.ts';
import { jsonResponse } from '../http/response.ts';
import { spaceBelowReserve } from './database-faults.ts';
import type { Emulators } from './emulators.ts';
import { jsonServiceClient } from './sigv4/json-service-client.ts';

/** One readiness check: null when ready, else what is wrong, in words (no secrets, no paths). */
export type ReadinessCheck = () => Promise<string | null>;

/** How long one check may take before it counts as failed: a probe answers quickly or not at all. */
const CHECK_TIMEOUT_MS = 3_000;

/**
 * What `/readyz` checks on the local runtime: the three emulators answer a signed request, the data
 * directory's disk is above the database's reserve, and the engines the configuration names are
 * installed. A container's orchestrator sends no traffic (and a person sees why) until all pass.
 */
export function localReadinessChecks(
  emulators: Emulators,
  dataDir: string,
): { checks: Record<string, ReadinessCheck>; close(): void } {
  // The database and queue checks are the signed JSON calls the emulators' thread makes itself; the
  // object store's client is made on the first probe and kept.
  const database = jsonServiceClient('dynamodb', emulators.endpoints.dynamodb, emulators.credentials);
  const queues = jsonServiceClient('sqs', emulators.endpoints.sqs, emulators.credentials);
  let objects: Promise<{ s3: S3Client; HeadBucketCommand: typeof HeadBucketCommand }> | undefined;
  const checks: Record<string, ReadinessCheck> = {
    database: async () => {
      const { Table } = await database.call<{ Table?: { TableStatus?: string } }>('DescribeTable', {
        TableName: emulators.tableName,
      });
      return Table?.TableStatus === 'ACTIVE' ? null : 'the notes table is not active';
    },
    object_store: async () => {
      objects ??= import('@aws-sdk/client-s3').then(({ S3Client, HeadBucketCommand }) => ({
        s3: new S3Client({
          ...localAwsClientConfig(emulators.endpoints.s3, emulators.credentials),
          forcePathStyle: true,
        }),
        HeadBucketCommand,
      }));
      const { s3, HeadBucketCommand: HeadBucket } = await objects;
      await s3.send(new HeadBucket({ Bucket: emulators.bucketName }));
      return null;
    },
    queues: async () => {
      await queues.call('GetQueueAttributes', { QueueUrl: emulators.queueUrls.transcription });
      return null;
    },
    disk: async () => {
      const shortfall = await spaceBelowReserve(dataDir);
      return shortfall
        ? `${Math.floor(shortfall.free / 1024 / 1024)} MB free under the data directory, below the ${Math.ceil(shortfall.reserve / 1024 / 1024)} MB reserve: writes are refused`
        : null;
    },
    engines: async () => {
      // Read when asked, not cached: the process-wide configuration is cached by its first reader, and
      // the runtime sets part of it (the public URL) only once it listens.
      const config = loadConfigFrom(process.env);
      // Named by their setting, not their path: the probe needs no credentials.
      const programs: Array<[string, string]> = [
        ['ffmpeg (NOTES_FFMPEG_PATH)', config.NOTES_FFMPEG_PATH],
        ...(config.NOTES_SPEECH_ENGINE === 'local' || config.NOTES_SPEECH_ENGINE === 'auto'
          ? [['pocketsphinx (NOTES_POCKETSPHINX_PATH)', config.NOTES_POCKETSPHINX_PATH] as [string, string]]
          : []),
        ...(config.NOTES_SPEECH_SYNTHESIZER === 'local'
          ? [['flite (NOTES_FLITE_PATH)', config.NOTES_FLITE_PATH] as [string, string]]
          : []),
      ];
      const missing: string[] = [];
      for (const [name, program] of programs) if (!(await executable(program))) missing.push(name);
      return missing.length > 0 ? `not installed: ${missing.join(', ')}` : null;
    },
  };
  return { checks, close: () => void objects?.then(({ s3 }) => s3.destroy()) };
}

/** Runs every check at once; each failure or timeout is named by its check. */
export async function runReadinessChecks(
  checks: Record<string, ReadinessCheck>,
): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`), CHECK_TIMEOUT_MS);
      });
      const outcome = await Promise.race([
        check().catch((error: unknown) => `failed: ${error instanceof Error ? error.name : 'error'}`),
        timedOut,
      ]);
      clearTimeout(timer);
      return [name, outcome ?? 'ok'] as const;
    }),
  );
  return {
    ready: results.every(([, outcome]) => outcome === 'ok'),
    checks: Object.fromEntries(results),
  };
}

/** A program name found executable on PATH, or a path that is executable. */
async function executable(program: string): Promise<boolean> {
  const candidates = program.includes('/')
    ? [program]
    : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, program));
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** A probe answers at a fixed path, without credentials, before any route. */
export type Probes = Record<string, () => Promise<APIGatewayProxyStructuredResultV2>>;

/**
 * `/healthz`: the process serves HTTP (a liveness probe: restart it when this fails). `/readyz`: every
 * readiness check passes (200), or which do not (503), with `details` (the speech engine's state).
 * Neither needs credentials nor tells anything about any account; both say `Cache-Control: no-store`.
 */
export function healthProbes(
  checks: Record<string, ReadinessCheck>,
  started: () => boolean,
  details: () => Record<string, unknown> = () => ({}),
): Probes {
  const noStore = { 'Cache-Control': 'no-store' };
  return {
    '/healthz': async () => jsonResponse(200, { status: 'alive' }, noStore),
    '/readyz': async () => {
      if (!started()) return jsonResponse(503, { status: 'starting', checks: {} }, noStore);
      const { ready, checks: outcomes } = await runReadinessChecks(checks);
      return jsonResponse(
        ready ? 200 : 503,
        { status: ready ? 'ready' : 'not_ready', checks: outcomes, ...details() },
        noStore,
      );
    },
  };
}

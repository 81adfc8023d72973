/** getNote latency over HTTP, paced, one request at a time: how responsive the API stays under work. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, type Service } from './support.ts';

/** One getNote every 100 ms at most: ~10 req/s, a few % of a core, like a client or two polling. */
const PACE_MS = 100;
const WARMUP_REQUESTS = 20;

export interface LatencySummary {
  requests: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface LatencySample {
  /** When the request started (performance.now()). */
  at: number;
  ms: number;
}

/** A note (submitted, never uploaded) to read, and a warmed-up timed getNote of it. */
export async function getNoteProbe(service: Service): Promise<() => Promise<number>> {
  const probeId = randomUUID();
  const probe = await service.api('POST', `/v1/notes/${probeId}/transcription`, {
    title: 'Probe note',
    content_type: 'audio/wav',
    size_bytes: 100_000,
  });
  if (probe.status !== 202) throw new Error(`probe note: ${probe.status}`);
  const getNote = () => timedGet(service, `/v1/notes/${probeId}`);
  for (let i = 0; i < WARMUP_REQUESTS; i++) await getNote();
  return getNote;
}

async function timedGet(service: Service, path: string): Promise<number> {
  const started = performance.now();
  const response = await service.api('GET', path);
  if (response.status !== 200)
    throw new Error(`getNote: ${response.status} ${JSON.stringify(response.body)}`);
  return performance.now() - started;
}

/** Paced requests, one at a time, until `until` settles; each sample is its start time and latency. */
export async function sampleUntil(
  request: () => Promise<number>,
  until: Promise<unknown>,
): Promise<LatencySample[]> {
  let done = false;
  const finished = until.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  const samples: LatencySample[] = [];
  while (!done) {
    const at = performance.now();
    const ms = await request();
    samples.push({ at, ms });
    await Promise.race([sleep(Math.max(0, PACE_MS - ms)), finished]);
  }
  await until;
  return samples;
}

export function summarize(latencies: number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50_ms: round(percentile(sorted, 0.5)),
    p99_ms: round(percentile(sorted, 0.99)),
    max_ms: round(sorted.at(-1) ?? Number.NaN),
  };
}

const round = (value: number) => Number(value.toFixed(2));

/**
 * Throughput, latency and CPU per request of getNote, listNotes (all notes, and one collection's),
 * listCollections, searchNotes and askWorkspace with 200 notes in the store, every one filed in a
 * collection, under autocannon, next to a trivial Node HTTP server measured the same way in the same
 * run; then a modest steady mix of getNote, listNotes, searchNotes and askWorkspace (bench/mixed-traffic.ts)
 * next to the same server.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { type MixedResult, mixedTraffic } from './mixed-traffic.ts';
import { cpuSecondsOf } from './process-tree.ts';
import {
  OUT_DIR,
  percentile,
  pollTranscription,
  REPO_ROOT,
  type Service,
  startService,
  stopChild,
  submitAndUpload,
  synthesize,
} from './support.ts';

const NOTES = 200;
const WITH_TRANSCRIPT = 3;
const COLLECTIONS = 10;
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const DURATION_SECONDS = 10;
/** A cap on top of the duration, per measurement. */
const MAX_REQUESTS = 1_000_000;
/** The mix: this many requests per second of each of its four kinds, for this long. */
const MIXED_RATE_PER_KIND = 4;
const MIXED_SECONDS = 60;
const SEARCH_WORDS = 'planning beta';
const QUESTION = 'What did we agree about the beta?';

export interface Measurement {
  name: string;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  failures: number;
  /** CPU time (user + system, all threads) of the answering process per successful request. */
  cpu_ms_per_request: number;
  rps_ratio: number;
  p50_ratio: number;
  cpu_ratio: number;
}

export interface ApiResult {
  notes: number;
  connections: number;
  duration_seconds: number;
  measurements: Measurement[];
  /** Left out when `mixedSeconds` is 0. */
  mixed?: MixedResult;
}

interface Target {
  name: string;
  url: string;
  pid: number;
  headers: Record<string, string>;
  method?: string;
  body?: string;
}

export async function apiLatency(
  options: {
    mixedSeconds?: number;
    mixedRatePerKind?: number;
    /** Measure only the targets whose names start with one of these (the baseline always). */
    only?: readonly string[];
  } = {},
): Promise<ApiResult> {
  const baseline = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench', 'baseline-server.ts')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const service = await startService('api').catch(async (error) => {
    await stopChild(baseline);
    throw error;
  });
  try {
    const [port] = (await once(baseline.stdout, 'data', { signal: AbortSignal.timeout(30_000) })) as [Buffer];
    const { pendingId, transcribedId, collectionId } = await seedNotes(service);
    const auth = { authorization: `Bearer ${service.apiKey}` };
    const baselineUrl = `http://127.0.0.1:${port.toString().trim()}/`;
    const baselinePid = baseline.pid ?? 0;
    const api = (name: string, path: string, more: Partial<Target> = {}): Target => ({
      name,
      url: `${service.apiUrl}${path}`,
      pid: service.pid,
      headers: auth,
      ...more,
    });
    const search = `/v1/search?q=${encodeURIComponent(SEARCH_WORDS)}`;
    const ask = {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    };
    const allTargets: Target[] = [
      { name: 'baseline: http.createServer, small JSON', url: baselineUrl, pid: baselinePid, headers: {} },
      api('getNote (awaiting upload)', `/v1/notes/${pendingId}`),
      api('getNote (with 3 s transcript)', `/v1/notes/${transcribedId}`),
      api('listNotes ?limit=20', '/v1/notes?limit=20'),
      api('listNotes ?collection_id=&limit=20', `/v1/notes?collection_id=${collectionId}&limit=20`),
      api('listCollections (10 collections)', '/v1/collections'),
      api(`searchNotes q="${SEARCH_WORDS}"`, search),
      api('askWorkspace (all notes)', '/v1/ask', ask),
    ];
    const { only } = options;
    const targets = allTargets.filter(
      (target, i) => i === 0 || !only || only.some((prefix) => target.name.startsWith(prefix)),
    );
    const measurements: Measurement[] = [];
    for (const target of targets) {
      const m = await measure(target);
      const base = measurements[0] ?? m;
      measurements.push({
        ...m,
        rps_ratio: m.rps / base.rps,
        p50_ratio: m.p50_ms / base.p50_ms,
        cpu_ratio: m.cpu_ms_per_request / base.cpu_ms_per_request,
      });
    }
    const mixedSeconds = options.mixedSeconds ?? MIXED_SECONDS;
    const mixed =
      mixedSeconds === 0
        ? undefined
        : await mixedTraffic({
            kinds: [
              { name: 'getNote', url: `${service.apiUrl}/v1/notes/${pendingId}`, init: { headers: auth } },
              { name: 'listNotes', url: `${service.apiUrl}/v1/notes?limit=20`, init: { headers: auth } },
              { name: 'searchNotes', url: `${service.apiUrl}${search}`, init: { headers: auth } },
              { name: 'askWorkspace', url: `${service.apiUrl}/v1/ask`, init: ask },
            ],
            baselineUrl,
            servicePid: service.pid,
            baselinePid,
            ratePerKind: options.mixedRatePerKind ?? MIXED_RATE_PER_KIND,
            seconds: mixedSeconds,
          });
    return {
      notes: NOTES,
      connections: CONNECTIONS,
      duration_seconds: DURATION_SECONDS,
      measurements,
      ...(mixed ? { mixed } : {}),
    };
  } finally {
    await Promise.all([service.stop(), stopChild(baseline)]);
  }
}

/**
 * 200 notes through submitTranscription; the first few get a real (short) transcript. Every note is
 * filed in the first of 10 collections (so a collection page reads as many notes as a listNotes page).
 */
async function seedNotes(service: Service) {
  await mkdir(OUT_DIR, { recursive: true });
  const clip = join(OUT_DIR, 'speech-short.wav');
  await synthesize('Welcome to the weekly planning meeting. We agreed to ship the beta on Friday.', clip);
  const ids = Array.from({ length: NOTES }, () => randomUUID());
  const transcribed = ids.slice(0, WITH_TRANSCRIPT);
  for (const id of transcribed) await submitAndUpload(service, id, clip, `Recorded note ${id.slice(0, 8)}`);
  for (let i = WITH_TRANSCRIPT; i < NOTES; i += CONNECTIONS) {
    await Promise.all(
      ids.slice(i, i + CONNECTIONS).map(async (id, j) => {
        const response = await service.api('POST', `/v1/notes/${id}/transcription`, {
          title: `Note ${i + j}`,
          content_type: 'audio/wav',
          size_bytes: 100_000,
        });
        if (response.status !== 202) throw new Error(`seeding: ${response.status}`);
      }),
    );
  }
  for (const id of transcribed) await pollTranscription(service, id, 300_000);
  const collectionIds: string[] = [];
  for (let i = 0; i < COLLECTIONS; i++) {
    const response = await service.api('POST', '/v1/collections', { name: `Collection ${i}` });
    if (response.status !== 201) throw new Error(`seeding collections: ${response.status}`);
    collectionIds.push(String((response.body as { collection_id: string }).collection_id));
  }
  const collectionId = collectionIds[0] as string;
  for (let i = 0; i < NOTES; i += CONNECTIONS) {
    await Promise.all(
      ids.slice(i, i + CONNECTIONS).map(async (id) => {
        const response = await service.api('POST', `/v1/collections/${collectionId}/notes`, { note_id: id });
        if (response.status !== 200) throw new Error(`filing: ${response.status}`);
      }),
    );
  }
  return { pendingId: ids[NOTES - 1] as string, transcribedId: transcribed[0] as string, collectionId };
}

async function measure({ name, url, pid, headers, method, body }: Target): Promise<Measurement> {
  const request = { url, headers, ...(method ? { method } : {}), ...(body ? { body } : {}) };
  await autocannon({ ...request, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  // autocannon's own histogram has 1 ms resolution; the per-response times are exact.
  const latencies: number[] = [];
  const cpuBefore = await cpuSecondsOf(pid);
  const run = autocannon({
    ...request,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    maxOverallRequests: MAX_REQUESTS,
  });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await run;
  const cpuSeconds = (await cpuSecondsOf(pid)) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: latencies.length,
    rps: latencies.length / result.duration,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    failures: result.non2xx + result.errors + result.timeouts,
    cpu_ms_per_request: (cpuSeconds * 1000) / latencies.length,
    rps_ratio: 1,
    p50_ratio: 1,
    cpu_ratio: 1,
  };
}

export function apiTable(r: ApiResult): string {
  const header = [
    'target',
    'requests',
    'req/s',
    'p50 ms',
    'p99 ms',
    'failed',
    'CPU ms/req',
    'rps/base',
    'p50/base',
    'CPU/base',
  ];
  const rows = r.measurements.map((m) => [
    m.name,
    String(m.requests),
    m.rps.toFixed(0),
    m.p50_ms.toFixed(2),
    m.p99_ms.toFixed(2),
    String(m.failures),
    m.cpu_ms_per_request.toFixed(3),
    m.rps_ratio.toFixed(4),
    m.p50_ratio.toFixed(1),
    m.cpu_ratio.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')}`;
  return [line(header), ...rows.map(line)].join('\n');
}

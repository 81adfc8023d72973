/**
 * A modest steady mix of API calls, open loop: each kind is sent at a fixed rate whether or not the
 * previous answer came back (as independent clients do), so a stalled server shows as latency, not
 * as fewer requests. The same schedule goes to a bare Node server at the same time, for comparison.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSecondsOf } from './process-tree.ts';
import { percentile } from './support.ts';

export interface MixedKind {
  name: string;
  url: string;
  init: RequestInit;
}

export interface MixedRow {
  name: string;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  failures: number;
}

export interface MixedResult {
  seconds: number;
  rate_per_kind: number;
  service: MixedRow[];
  baseline: MixedRow;
  /** CPU time of the service process (all its threads) per request of the mix. */
  service_cpu_ms_per_request: number;
  baseline_cpu_ms_per_request: number;
}

/**
 * `ratePerKind` requests per second of every kind for `seconds` to the service, and as many to the
 * baseline (one kind per service kind, all answered alike), over the same seconds.
 */
export async function mixedTraffic(options: {
  kinds: MixedKind[];
  baselineUrl: string;
  servicePid: number;
  baselinePid: number;
  ratePerKind: number;
  seconds: number;
}): Promise<MixedResult> {
  const { kinds, baselineUrl, ratePerKind, seconds } = options;
  const baselineKinds = kinds.map((kind) => ({ name: kind.name, url: baselineUrl, init: {} }));
  const cpuBefore = await Promise.all([cpuSecondsOf(options.servicePid), cpuSecondsOf(options.baselinePid)]);
  const [service, baseline] = await Promise.all([
    Promise.all(kinds.map((kind) => paced(kind, ratePerKind, seconds))),
    Promise.all(baselineKinds.map((kind) => paced(kind, ratePerKind, seconds))),
  ]);
  const cpuAfter = await Promise.all([cpuSecondsOf(options.servicePid), cpuSecondsOf(options.baselinePid)]);
  const serviceRows = service.map((samples, i) => row(kinds[i]?.name ?? '', samples));
  const all = (runs: Samples[]) => ({
    ms: runs.flatMap((run) => run.ms),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  });
  const serviceAll = all(service);
  const baselineAll = all(baseline);
  return {
    seconds,
    rate_per_kind: ratePerKind,
    service: [...serviceRows, row('all service calls', serviceAll)],
    baseline: row('baseline: http.createServer, same schedule', baselineAll),
    service_cpu_ms_per_request:
      ((cpuAfter[0] - cpuBefore[0]) * 1000) / (serviceAll.ms.length + serviceAll.failures),
    baseline_cpu_ms_per_request:
      ((cpuAfter[1] - cpuBefore[1]) * 1000) / (baselineAll.ms.length + baselineAll.failures),
  };
}

interface Samples {
  ms: number[];
  failures: number;
}

/** Starts one request every 1/rate s (a random phase, so kinds do not line up) for `seconds`. */
async function paced(kind: MixedKind, rate: number, seconds: number): Promise<Samples> {
  const samples: Samples = { ms: [], failures: 0 };
  const intervalMs = 1000 / rate;
  const start = performance.now() + Math.random() * intervalMs;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(timed(kind, samples));
  }
  await Promise.all(inFlight);
  return samples;
}

async function timed(kind: MixedKind, samples: Samples): Promise<void> {
  const started = performance.now();
  try {
    const response = await fetch(kind.url, { ...kind.init, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    if (response.ok) samples.ms.push(performance.now() - started);
    else samples.failures++;
  } catch {
    samples.failures++;
  }
}

function row(name: string, samples: Samples): MixedRow {
  const sorted = [...samples.ms].sort((a, b) => a - b);
  return {
    name,
    requests: sorted.length,
    p50_ms: percentile(sorted, 0.5),
    p99_ms: percentile(sorted, 0.99),
    max_ms: sorted.at(-1) ?? Number.NaN,
    failures: samples.failures,
  };
}

export function mixedTable(r: MixedResult): string {
  const base = r.baseline;
  const header = ['calls', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'failed', 'p50/base', 'p99/base'];
  const rows = [base, ...r.service].map((m) => [
    m.name,
    String(m.requests),
    m.p50_ms.toFixed(2),
    m.p99_ms.toFixed(2),
    m.max_ms.toFixed(1),
    String(m.failures),
    (m.p50_ms / base.p50_ms).toFixed(1),
    (m.p99_ms / base.p99_ms).toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')}`;
  const cpu = `  CPU per request: service ${r.service_cpu_ms_per_request.toFixed(2)} ms, baseline ${r.baseline_cpu_ms_per_request.toFixed(3)} ms (${(r.service_cpu_ms_per_request / r.baseline_cpu_ms_per_request).toFixed(0)}x)`;
  return [line(header), ...rows.map(line), cpu].join('\n');
}

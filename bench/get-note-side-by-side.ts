/**
 * `npx tsx bench/get-note-side-by-side.ts OTHER_CHECKOUT [--rounds N] [--seconds S]`: getNote of this
 * checkout's service and of another checkout's (say main, before a change), in the same run,
 * alternating in short rounds with the bare server between them, so that the machine's load (shared,
 * noisy) falls on both alike. Each service holds one note filed in one collection (getNote reads the
 * note with its items, one Query, and the collection's name, one BatchGetItem, as in `npm run bench
 * -- api`). Prints req/s, p50/p99 and CPU per request per round and the medians, and the median of
 * each round's ratio of this checkout's figures to the other's.
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { cpuSecondsOf } from './process-tree.ts';
import {
  cliOption,
  median,
  percentile,
  REPO_ROOT,
  type Service,
  startService,
  stopChild,
} from './support.ts';

const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;

interface Round {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  cpu_ms_per_request: number;
}

async function measure(url: string, pid: number, headers: Record<string, string>, seconds: number) {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  const latencies: number[] = [];
  const cpuBefore = await cpuSecondsOf(pid);
  const run = autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await run;
  const cpuSeconds = (await cpuSecondsOf(pid)) - cpuBefore;
  if (result.non2xx + result.errors > 0) throw new Error(`${url}: ${result.non2xx + result.errors} failures`);
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / result.duration,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    cpu_ms_per_request: (cpuSeconds * 1000) / latencies.length,
  };
}

async function noteInACollection(service: Service): Promise<string> {
  const noteId = randomUUID();
  const submitted = await service.api('POST', `/v1/notes/${noteId}/transcription`, {
    title: 'Side by side',
    content_type: 'audio/wav',
    size_bytes: 100_000,
  });
  if (submitted.status !== 202) throw new Error(`seeding: ${submitted.status}`);
  const collection = await service.api('POST', '/v1/collections', { name: 'Side by side' });
  const collectionId = String(collection.body.collection_id);
  const filed = await service.api('POST', `/v1/collections/${collectionId}/notes`, { note_id: noteId });
  if (filed.status !== 200) throw new Error(`filing: ${filed.status}`);
  return noteId;
}

async function main() {
  const other = process.argv[2];
  if (!other || other.startsWith('--')) {
    console.error('usage: npx tsx bench/get-note-side-by-side.ts OTHER_CHECKOUT [--rounds N] [--seconds S]');
    process.exit(2);
  }
  const rounds = Number(cliOption(process.argv, '--rounds') ?? 3);
  const seconds = Number(cliOption(process.argv, '--seconds') ?? 8);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at start`,
  );
  const baseline = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench', 'baseline-server.ts')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [port] = (await once(baseline.stdout, 'data')) as [Buffer];
  const baselineUrl = `http://127.0.0.1:${port.toString().trim()}/`;
  const services = [
    { label: 'other', service: await startService('side-other', resolve(other)) },
    { label: 'this', service: await startService('side-this') },
  ];
  try {
    const targets = [
      { label: 'bare', url: baselineUrl, pid: baseline.pid ?? 0, headers: {} },
      ...(await Promise.all(
        services.map(async ({ label, service }) => ({
          label,
          url: `${service.apiUrl}/v1/notes/${await noteInACollection(service)}`,
          pid: service.pid,
          headers: { authorization: `Bearer ${service.apiKey}` },
        })),
      )),
    ];
    const results = new Map<string, Round[]>(targets.map((t) => [t.label, []]));
    for (let round = 0; round < rounds; round++) {
      // Alternate which service goes first, so neither always follows the bare server.
      const order = round % 2 === 0 ? targets : [targets[0], targets[2], targets[1]];
      for (const target of order) {
        if (!target) continue;
        const m = await measure(target.url, target.pid, target.headers, seconds);
        results.get(target.label)?.push(m);
        console.log(
          `round ${round + 1} ${target.label.padEnd(5)} ${m.rps.toFixed(0).padStart(6)} req/s  p50 ${m.p50_ms.toFixed(2)} ms  p99 ${m.p99_ms.toFixed(2)} ms  CPU ${m.cpu_ms_per_request.toFixed(3)} ms/req  load ${loadavg()[0]?.toFixed(2)}`,
        );
      }
    }
    const summary = (label: string) => {
      const rs = results.get(label) ?? [];
      return {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50_ms)),
        p99: median(rs.map((r) => r.p99_ms)),
        cpu: median(rs.map((r) => r.cpu_ms_per_request)),
      };
    };
    const bare = summary('bare');
    const before = summary('other');
    const after = summary('this');
    for (const [label, s] of [
      ['bare server', bare],
      [`other (${other})`, before],
      ['this checkout', after],
    ] as const) {
      console.log(
        `median ${label}: ${s.rps.toFixed(0)} req/s (${((100 * s.rps) / bare.rps).toFixed(2)} % of bare), p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, CPU ${s.cpu.toFixed(3)} ms/req (${(s.cpu / bare.cpu).toFixed(0)}x bare)`,
      );
    }
    // The two services of one round ran back to back: their ratio is the least disturbed figure.
    const ours = results.get('this') ?? [];
    const theirs = results.get('other') ?? [];
    const paired = (pick: (r: Round) => number) => median(ours.map((r, i) => pick(r) / pick(theirs[i] ?? r)));
    console.log(
      `this ÷ other, median of the rounds' ratios: req/s ${paired((r) => r.rps).toFixed(3)}, CPU per request ${paired((r) => r.cpu_ms_per_request).toFixed(3)}, p50 ${paired((r) => r.p50_ms).toFixed(3)}; load average ${loadavg()[0]?.toFixed(2)} at end`,
    );
  } finally {
    await Promise.all([...services.map(({ service }) => service.stop()), stopChild(baseline)]);
  }
}

await main();

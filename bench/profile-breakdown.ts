/**
 * `npx tsx bench/profile-breakdown.ts FILE.cpuprofile [--from-end S] [--skip-end S] [--top N]`: where a
 * V8 CPU profile's time went, by package (the AWS SDK, Node's HTTP and streams, middy, zod, the
 * logger, dynalite, LevelDB, our code...), and its costliest functions. Time spent in V8 built-ins
 * without a source (JSON.parse, RegExp, Buffer's natives) is counted to the nearest caller that has
 * one, so JSON work inside the SDK counts as the SDK's. `--from-end S` keeps only the profile's last
 * S seconds (before `--skip-end`): a service stopped right after a load run is profiled under that
 * load there, not while it started or was seeded.
 */
import { readFile } from 'node:fs/promises';
import { cliOption } from './support.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Breakdown {
  /** Milliseconds per category, idle excluded. */
  categories: Map<string, number>;
  functions: Map<string, number>;
  busyMs: number;
  idleMs: number;
  windowMs: number;
}

/** Ordered: the first rule whose test matches a source URL names its category. */
const RULES: Array<[string, (url: string) => boolean]> = [
  ['our code (emulator thread bundle)', (u) => u.includes('/node_modules/.cache/notes-threads/')],
  [
    'AWS SDK (@aws-sdk, @smithy)',
    (u) => /\/node_modules\/(@aws-sdk|@smithy|@aws-crypto|fast-xml-parser|strnum|tslib|bowser)\//.test(u),
  ],
  ['middy', (u) => u.includes('/node_modules/@middy/')],
  ['zod', (u) => u.includes('/node_modules/zod/')],
  ['logger (Powertools)', (u) => u.includes('/node_modules/@aws-lambda-powertools/')],
  ['dynalite', (u) => u.includes('/node_modules/dynalite/')],
  [
    'LevelDB (level, classic-level, memdown, ...)',
    (u) => /\/node_modules\/(@?[\w.-]*level[\w.-]*|memdown|leveldown|lazy|once|async|buffer-crc32)\//.test(u),
  ],
  ['s3rver, koa', (u) => /\/node_modules\/(s3rver|koa[\w-]*|@koa|winston[\w-]*|xmlbuilder2?)\//.test(u)],
  ['SQS emulator (local-aws-sqs)', (u) => u.includes('/node_modules/local-aws-sqs/')],
  ['tsx (loader)', (u) => u.includes('/node_modules/tsx/')],
  ['other packages', (u) => u.includes('/node_modules/')],
  ['our code (src/)', (u) => /\/(src|functions|bin)\//.test(u)],
  [
    "Node's HTTP, net and streams",
    (u) => /^node:(_http_|http|https|net|stream|internal\/(streams|http|net|stream_base|js_stream))/.test(u),
  ],
  ["Node's crypto", (u) => /^node:(crypto|internal\/crypto)/.test(u)],
  ["Node's other internals (timers, events, buffer, url, ...)", (u) => u.startsWith('node:')],
];

const SPECIAL: Record<string, string> = {
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8/native, no JS frame (program)',
  '(idle)': 'idle',
  '(root)': 'V8/native, no JS frame (program)',
};

export function categoryOf(url: string): string {
  for (const [name, test] of RULES) if (test(url)) return name;
  return url ? 'other' : 'V8 built-ins with no caller';
}

/** `fromEndSeconds`, `skipEndSeconds`: the window, counted back from the profile's end. */
export function breakdown(profile: CpuProfile, fromEndSeconds?: number, skipEndSeconds = 0): Breakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // The frame a node's time is charged to: itself, or its nearest ancestor with a source URL.
  const chargedTo = new Map<number, ProfileNode>();
  const charge = (node: ProfileNode): ProfileNode => {
    const known = chargedTo.get(node.id);
    if (known) return known;
    let current: ProfileNode | undefined = node;
    while (current && !current.callFrame.url && !(current.callFrame.functionName in SPECIAL)) {
      const up = parent.get(current.id);
      current = up === undefined ? undefined : byId.get(up);
    }
    const result = current ?? node;
    chargedTo.set(node.id, result);
    return result;
  };

  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) {
    t += delta;
    times.push(t);
  }
  // Profile times are in microseconds.
  const end = profile.endTime - skipEndSeconds * 1e6;
  const start = fromEndSeconds === undefined ? profile.startTime : end - fromEndSeconds * 1e6;
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  let busyMs = 0;
  let idleMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const at = times[i] ?? 0;
    if (at < start || at > end) continue;
    // A sample stands for the time until the next one.
    const ms = ((times[i + 1] ?? profile.endTime) - at) / 1000;
    const node = byId.get(profile.samples[i] ?? -1);
    if (!node) continue;
    const frame = charge(node);
    const special = SPECIAL[frame.callFrame.functionName];
    const category = special ?? categoryOf(frame.callFrame.url);
    if (category === 'idle') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    categories.set(category, (categories.get(category) ?? 0) + ms);
    const where = frame.callFrame.url
      .replace(/^.*\/node_modules\//, '')
      .replace(/^file:\/\/.*?\/(src|bin)\//, '$1/');
    const name = `${frame.callFrame.functionName || '(anonymous)'} ${where}:${frame.callFrame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  return { categories, functions, busyMs, idleMs, windowMs: (end - start) / 1000 };
}

export function breakdownTable(b: Breakdown, top = 25): string {
  const pct = (ms: number) => `${((100 * ms) / b.busyMs).toFixed(1).padStart(5)} %`;
  const sorted = (map: Map<string, number>) => [...map].sort((x, y) => y[1] - x[1]);
  return [
    `window ${(b.windowMs / 1000).toFixed(1)} s: busy ${(b.busyMs / 1000).toFixed(2)} s, idle ${(b.idleMs / 1000).toFixed(2)} s`,
    '  by package (share of busy time, self time; V8 built-ins counted to their caller):',
    ...sorted(b.categories).map(([name, ms]) => `  ${pct(ms)}  ${name}`),
    `  costliest ${top} functions (self):`,
    ...sorted(b.functions)
      .slice(0, top)
      .map(([name, ms]) => `  ${pct(ms)}  ${name}`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv
    .slice(2)
    .filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const fromEnd = cliOption(process.argv, '--from-end');
  const skipEnd = Number(cliOption(process.argv, '--skip-end') ?? 0);
  const top = Number(cliOption(process.argv, '--top') ?? 25);
  for (const file of files) {
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    console.log(`${file}`);
    console.log(breakdownTable(breakdown(profile, fromEnd ? Number(fromEnd) : undefined, skipEnd), top));
    console.log('');
  }
}

/**
 * `tsx bench/bundle-size.ts`: bundles every Lambda handler exactly as the CDK stack does (the same
 * `bundleHandler` of lib/bundling.ts, chunks included, wired for the handler's `needs` and the stack's text
 * engine), prints per handler what a cold start reads
 * (index.mjs and the chunks it imports statically) and everything shipped (the chunks loaded on first
 * use too), what dominates the largest API bundle, and the cold import of every API bundle in Node
 * next to a hello-world handler bundled the same way, measured in the same run. Bundles and results
 * land in bench/out/bundles/.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { bundleHandler, handlerNodeOptions, STACK_TEXT_ENGINE } from '../lib/bundling.ts';
import {
  apiRoutes,
  eventWorkers,
  handlerEntry,
  type Needs,
  publicRoutes,
  queueWorkers,
} from '../src/routes.ts';
import { median, REPO_ROOT } from './support.ts';

const BUNDLES_DIR = join(REPO_ROOT, 'bench', 'out', 'bundles');
/** The issue's targets: an API handler's cold-start code, and its cold import next to hello world. */
const API_BUNDLE_BUDGET_BYTES = 400 * 1024;
const IMPORT_RATIO_BUDGET = 6;
const IMPORT_RUNS = 5;

export interface BundleSize {
  name: string;
  /** api: a REST operation (the budget's subject); public: MCP and OAuth endpoints; worker: queue and events. */
  kind: 'api' | 'public' | 'worker' | 'baseline';
  /** What a cold start reads: index.mjs and the chunks it imports statically (minified). */
  bytes: number;
  /** Everything in the asset: also the chunks loaded with import() on first use. */
  totalBytes: number;
  /** The .map files of those cold-start files. */
  sourceMapBytes: number;
  /** Bytes of the cold-start code per package (or `src`, `functions`), largest first. */
  contributors: Array<{ source: string; bytes: number }>;
}

export interface ImportCost {
  /** CPU time (user + system, process.cpuUsage) of one `await import()` in a fresh process. */
  cpuMs: number;
  wallMs: number;
}

export interface ImportTime {
  name: string;
  bytes: number;
  /** Medians of IMPORT_RUNS fresh `node` processes. */
  plain: ImportCost;
  /** The same with `--enable-source-maps`, as the functions run (NODE_OPTIONS in the stack). */
  withSourceMaps: ImportCost;
}

export interface BundleSizeResult {
  bundles: BundleSize[];
  /** Every API bundle, largest first. */
  apiImports: ImportTime[];
  helloWorld: ImportTime;
  /** The largest API bundle imported as on Lambda with tracing on (the tracer's chunk loaded). */
  largestApiTraced: ImportTime;
  apiBudgetBytes: number;
  importRatioBudget: number;
}

export async function bundleSizes(): Promise<BundleSizeResult> {
  await rm(BUNDLES_DIR, { recursive: true, force: true });
  const handlers = [
    ...Object.entries(apiRoutes).map(([name, { needs }]) => ({ name, needs, kind: 'api' as const })),
    ...Object.entries(publicRoutes).map(([name, { needs }]) => ({ name, needs, kind: 'public' as const })),
    ...[...Object.entries(queueWorkers), ...Object.entries(eventWorkers)].map(([name, { needs }]) => ({
      name,
      needs,
      kind: 'worker' as const,
    })),
  ];
  const bundles: BundleSize[] = [];
  for (const { name, kind, needs } of handlers) {
    const entry = join(REPO_ROOT, handlerEntry(name as Parameters<typeof handlerEntry>[0]));
    bundles.push(bundle(name, kind, entry, needs));
  }

  const helloDir = await mkdtemp(join(tmpdir(), 'notes-hello-'));
  const helloEntry = join(helloDir, 'hello-world.ts');
  await writeFile(
    helloEntry,
    "export const handler = async () => ({ statusCode: 200, body: 'hello world' });\n",
  );
  const hello = bundle('hello-world', 'baseline', helloEntry);
  await rm(helloDir, { recursive: true, force: true });

  const api = bundles.filter((b) => b.kind === 'api').sort((a, b) => b.bytes - a.bytes);
  // Interleaved with the API bundles, so that load on the machine skews both alike.
  const helloRuns: ImportTime[] = [];
  const apiImports: ImportTime[] = [];
  for (const b of api) {
    apiImports.push(await importTime(b));
    helloRuns.push(await importTime(hello));
  }
  const largest = api[0] as BundleSize;
  return {
    bundles: [...bundles, hello],
    apiImports,
    helloWorld: {
      name: hello.name,
      bytes: hello.bytes,
      plain: medianCost(helloRuns.map((t) => t.plain)),
      withSourceMaps: medianCost(helloRuns.map((t) => t.withSourceMaps)),
    },
    largestApiTraced: await importTime(largest, { AWS_LAMBDA_FUNCTION_NAME: `notes-bench-${largest.name}` }),
    apiBudgetBytes: API_BUNDLE_BUDGET_BYTES,
    importRatioBudget: IMPORT_RATIO_BUDGET,
  };
}

/** The bundle the stack deploys (lib/bundling.ts `bundleHandler`, thread entries aside). */
function bundle(name: string, kind: BundleSize['kind'], entry: string, needs?: Needs): BundleSize {
  const outfile = bundlePath(name);
  const metafile = bundleHandler(
    entry,
    dirname(outfile),
    needs ? { needs, textEngine: STACK_TEXT_ENGINE } : {},
  );
  const outputs = metafile.outputs;
  const key = (path: string) => relative(process.cwd(), path);
  const coldStart = staticallyLoaded(metafile, key(outfile));
  const code = (paths: Iterable<string>) =>
    [...paths]
      .filter((path) => path.endsWith('.mjs'))
      .reduce((sum, path) => sum + (outputs[path]?.bytes ?? 0), 0);
  return {
    name,
    kind,
    bytes: code(coldStart),
    totalBytes: code(Object.keys(outputs)),
    sourceMapBytes: [...coldStart].reduce((sum, path) => sum + (outputs[`${path}.map`]?.bytes ?? 0), 0),
    contributors: contributors(metafile, coldStart),
  };
}

function bundlePath(name: string): string {
  return join(BUNDLES_DIR, name, 'index.mjs');
}

/** The output files an import of `entry` evaluates: it and its static imports, transitively. */
function staticallyLoaded(metafile: Metafile, entry: string): Set<string> {
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path) || !metafile.outputs[path]) return;
    loaded.add(path);
    for (const imported of metafile.outputs[path].imports) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(entry);
  return loaded;
}

/** Groups the cold-start bytes by npm package (the scope included) or by top-level folder of ours. */
function contributors(metafile: Metafile, files: Set<string>): BundleSize['contributors'] {
  const totals = new Map<string, number>();
  for (const file of files) {
    for (const [path, { bytesInOutput }] of Object.entries(metafile.outputs[file]?.inputs ?? {})) {
      const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const source = inPackage?.[1] ?? path.split('/')[0] ?? path;
      totals.set(source, (totals.get(source) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes);
}

async function importTime(b: BundleSize, env: Record<string, string> = {}): Promise<ImportTime> {
  return {
    name: b.name,
    bytes: b.bytes,
    plain: await medianImportCost(bundlePath(b.name), [], env),
    withSourceMaps: await medianImportCost(bundlePath(b.name), [handlerNodeOptions], env),
  };
}

async function medianImportCost(
  file: string,
  nodeFlags: string[],
  env: Record<string, string>,
): Promise<ImportCost> {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); const wallMs = performance.now() - t; const u = process.cpuUsage(c); console.log(JSON.stringify({ cpuMs: (u.user + u.system) / 1000, wallMs }));`;
  const runs: ImportCost[] = [];
  for (let i = 0; i < IMPORT_RUNS; i++) {
    runs.push(JSON.parse(await nodeOutput([...nodeFlags, '--input-type=module', '-e', script], env)));
  }
  return medianCost(runs);
}

function medianCost(runs: ImportCost[]): ImportCost {
  return { cpuMs: median(runs.map((r) => r.cpuMs)), wallMs: median(runs.map((r) => r.wallMs)) };
}

function nodeOutput(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      // What the functions run with, minus AWS: the handler modules only read settings when invoked.
      env: {
        PATH: process.env.PATH ?? '',
        POWERTOOLS_SERVICE_NAME: 'notes',
        POWERTOOLS_METRICS_NAMESPACE: 'Notes',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(stdout.trim()) : reject(new Error(`node exited ${code}: ${stderr}`)),
    );
  });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ratio = (cost: ImportCost, hello: ImportCost) => `${(cost.cpuMs / hello.cpuMs).toFixed(1)}x`;

export function bundleSizeTable(result: BundleSizeResult): string {
  const rows = result.bundles.map((b) => {
    const over = b.kind === 'api' && b.bytes > result.apiBudgetBytes ? '  over budget' : '';
    return `| ${b.name.padEnd(24)} | ${b.kind.padEnd(8)} | ${kb(b.bytes).padStart(9)} | ${kb(b.totalBytes).padStart(9)} | ${kb(b.sourceMapBytes).padStart(9)} |${over}`;
  });
  const largest = result.bundles.find((b) => b.name === result.apiImports[0]?.name);
  const top = (largest?.contributors ?? [])
    .slice(0, 10)
    .map((c) => `  ${kb(c.bytes).padStart(9)}  ${c.source}`);
  const hello = result.helloWorld;
  const cost = (c: ImportCost) => `${c.cpuMs.toFixed(1).padStart(7)} | ${c.wallMs.toFixed(1).padStart(7)}`;
  const time = (t: ImportTime) =>
    `| ${t.name.padEnd(24)} | ${kb(t.bytes).padStart(9)} | ${cost(t.plain)} | ${ratio(t.plain, hello.plain).padStart(6)} | ${cost(t.withSourceMaps)} | ${ratio(t.withSourceMaps, hello.withSourceMaps).padStart(6)} |`;
  const ratios = result.apiImports.map((t) => t.withSourceMaps.cpuMs / hello.withSourceMaps.cpuMs);
  const overRatio = ratios.filter((r) => r > result.importRatioBudget).length;
  const overSize = result.bundles.filter((b) => b.kind === 'api' && b.bytes > result.apiBudgetBytes).length;
  return [
    'Cold start = index.mjs + the chunks it imports statically; shipped = all files of the asset.',
    `| ${'function'.padEnd(24)} | kind     | cold start| shipped   | .map      |`,
    `|${'-'.repeat(26)}|----------|-----------|-----------|-----------|`,
    ...rows,
    '',
    `Largest API bundle (${largest?.name}), cold-start code by source:`,
    ...top,
    '',
    `Cold import in Node ${process.version}: CPU (user+system) and wall ms around one import(), median of ${IMPORT_RUNS} fresh processes; ratio = CPU / hello world's CPU (hello measured between the API bundles, median of all its runs)`,
    `| ${'bundle'.padEnd(24)} | cold start|  CPU ms |  wall ms |  ratio | CPU ms (${handlerNodeOptions}) |  wall ms |  ratio |`,
    `|${'-'.repeat(26)}|-----------|---------|----------|--------|${'-'.repeat(handlerNodeOptions.length + 10)}|----------|--------|`,
    ...result.apiImports.map(time),
    time(hello),
    `| ${`${result.largestApiTraced.name}, traced`.padEnd(24)} | ${kb(result.largestApiTraced.bytes).padStart(9)} | ${cost(result.largestApiTraced.plain)} | ${ratio(result.largestApiTraced.plain, hello.plain).padStart(6)} | ${cost(result.largestApiTraced.withSourceMaps)} | ${ratio(result.largestApiTraced.withSourceMaps, hello.withSourceMaps).padStart(6)} |`,
    '',
    `Budget (issue 24): API cold-start code < ${kb(result.apiBudgetBytes)}: ${overSize === 0 ? 'met' : `${overSize} over`}; cold import CPU (${handlerNodeOptions}) <= ${result.importRatioBudget}x hello world: largest ${ratios[0]?.toFixed(1)}x, median ${median(ratios).toFixed(1)}x, ${overRatio === 0 ? 'met' : `${overRatio} of ${ratios.length} over`}`,
  ].join('\n');
}

/** Bundles, measures, prints the table and writes bench/out/bundles/results.json. */
export async function main(): Promise<BundleSizeResult> {
  console.log('Lambda bundle sizes (esbuild settings of lib/bundling.ts: ESM, minified, split, node22)');
  const result = await bundleSizes();
  console.log(`${bundleSizeTable(result)}\n`);
  await mkdir(BUNDLES_DIR, { recursive: true });
  await writeFile(join(BUNDLES_DIR, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}

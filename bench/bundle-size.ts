/**
 * `tsx bench/bundle-size.ts`: bundles every Lambda handler exactly as the CDK stack does (the esbuild
 * settings come from lib/bundling.ts), prints the minified size of each, what dominates the largest
 * API bundle, and the cold import time in Node of that bundle next to a hello-world handler bundled the
 * same way. Bundles and results land in bench/out/bundles/.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, handlerNodeOptions } from '../lib/bundling.ts';
import { apiRoutes, eventWorkers, handlerEntry, queueWorkers } from '../src/routes.ts';
import { REPO_ROOT } from './support.ts';

const BUNDLES_DIR = join(REPO_ROOT, 'bench', 'out', 'bundles');
/** The target for an API handler bundle. */
const API_BUNDLE_BUDGET_BYTES = 300 * 1024;
const IMPORT_RUNS = 5;

export interface BundleSize {
  name: string;
  kind: 'api' | 'worker' | 'baseline';
  bytes: number;
  sourceMapBytes: number;
  /** Bytes of the bundle per package (or `src`, `functions`), largest first. */
  contributors: Array<{ source: string; bytes: number }>;
}

export interface ImportTime {
  name: string;
  bytes: number;
  /** Median of IMPORT_RUNS fresh `node` processes, each timing one `await import()`. */
  medianMs: number;
  /** The same with `--enable-source-maps`, as the functions run (NODE_OPTIONS in the stack). */
  medianMsWithSourceMaps: number;
}

export interface BundleSizeResult {
  bundles: BundleSize[];
  largestApi: ImportTime;
  helloWorld: ImportTime;
  apiBudgetBytes: number;
}

export async function bundleSizes(): Promise<BundleSizeResult> {
  await rm(BUNDLES_DIR, { recursive: true, force: true });
  const handlers = [
    ...Object.keys(apiRoutes).map((name) => ({ name, kind: 'api' as const })),
    ...[...Object.keys(queueWorkers), ...Object.keys(eventWorkers)].map((name) => ({
      name,
      kind: 'worker' as const,
    })),
  ];
  const bundles: BundleSize[] = [];
  for (const { name, kind } of handlers) {
    const entry = join(REPO_ROOT, handlerEntry(name as Parameters<typeof handlerEntry>[0]));
    bundles.push(await bundle(name, kind, entry));
  }

  const helloDir = await mkdtemp(join(tmpdir(), 'notes-hello-'));
  const helloEntry = join(helloDir, 'hello-world.ts');
  await writeFile(
    helloEntry,
    "export const handler = async () => ({ statusCode: 200, body: 'hello world' });\n",
  );
  const hello = await bundle('hello-world', 'baseline', helloEntry);
  await rm(helloDir, { recursive: true, force: true });

  const largest = bundles.filter((b) => b.kind === 'api').reduce((a, b) => (b.bytes > a.bytes ? b : a));
  return {
    bundles: [...bundles, hello],
    largestApi: await importTime(largest),
    helloWorld: await importTime(hello),
    apiBudgetBytes: API_BUNDLE_BUDGET_BYTES,
  };
}

async function bundle(name: string, kind: BundleSize['kind'], entry: string): Promise<BundleSize> {
  const outfile = bundlePath(name);
  const { metafile } = await build({ ...esbuildOptions(entry, outfile), metafile: true });
  const [code, map] = await Promise.all([stat(outfile), stat(`${outfile}.map`)]);
  return {
    name,
    kind,
    bytes: code.size,
    sourceMapBytes: map.size,
    contributors: contributors(metafile, outfile),
  };
}

function bundlePath(name: string): string {
  return join(BUNDLES_DIR, name, 'index.mjs');
}

/** Groups the bundle's bytes by npm package (the scope included) or by top-level folder of ours. */
function contributors(metafile: Metafile, outfile: string): BundleSize['contributors'] {
  const output = Object.entries(metafile.outputs).find(([path]) => resolve(path) === outfile)?.[1];
  const totals = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const source = inPackage?.[1] ?? path.split('/')[0] ?? path;
    totals.set(source, (totals.get(source) ?? 0) + bytesInOutput);
  }
  return [...totals].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes);
}

async function importTime(b: BundleSize): Promise<ImportTime> {
  return {
    name: b.name,
    bytes: b.bytes,
    medianMs: await medianImportMs(bundlePath(b.name), []),
    medianMsWithSourceMaps: await medianImportMs(bundlePath(b.name), [handlerNodeOptions]),
  };
}

async function medianImportMs(file: string, nodeFlags: string[]): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const runs: number[] = [];
  for (let i = 0; i < IMPORT_RUNS; i++) {
    runs.push(Number(await nodeOutput([...nodeFlags, '--input-type=module', '-e', script])));
  }
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)] ?? Number.NaN;
}

function nodeOutput(args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      // What the functions run with, minus AWS: the handler modules only read settings when invoked.
      env: {
        PATH: process.env.PATH ?? '',
        POWERTOOLS_SERVICE_NAME: 'notes',
        POWERTOOLS_METRICS_NAMESPACE: 'Notes',
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

export function bundleSizeTable(result: BundleSizeResult): string {
  const rows = result.bundles.map((b) => {
    const over = b.kind === 'api' && b.bytes > result.apiBudgetBytes ? '  over budget' : '';
    return `| ${b.name.padEnd(24)} | ${b.kind.padEnd(8)} | ${kb(b.bytes).padStart(9)} | ${kb(b.sourceMapBytes).padStart(9)} |${over}`;
  });
  const largest = result.bundles.find((b) => b.name === result.largestApi.name);
  const top = (largest?.contributors ?? [])
    .slice(0, 8)
    .map((c) => `  ${kb(c.bytes).padStart(9)}  ${c.source}`);
  const time = (t: ImportTime) =>
    `| ${t.name.padEnd(24)} | ${kb(t.bytes).padStart(9)} | ${t.medianMs.toFixed(1).padStart(8)} ms | ${t.medianMsWithSourceMaps.toFixed(1).padStart(8)} ms |`;
  return [
    `| ${'function'.padEnd(24)} | kind     | minified  | .map      |`,
    `|${'-'.repeat(26)}|----------|-----------|-----------|`,
    ...rows,
    '',
    `Largest API bundle (${result.largestApi.name}), by source:`,
    ...top,
    '',
    `Cold import in Node ${process.version} (median of ${IMPORT_RUNS} fresh processes):`,
    `| ${'bundle'.padEnd(24)} | minified  | import      | with ${handlerNodeOptions} |`,
    `|${'-'.repeat(26)}|-----------|-------------|${'-'.repeat(handlerNodeOptions.length + 7)}|`,
    time(result.largestApi),
    time(result.helloWorld),
  ].join('\n');
}

/** Bundles, measures, prints the table and writes bench/out/bundles/results.json. */
export async function main(): Promise<BundleSizeResult> {
  console.log('Lambda bundle sizes (esbuild settings of lib/bundling.ts: ESM, minified, node22)');
  const result = await bundleSizes();
  console.log(`${bundleSizeTable(result)}\n`);
  await mkdir(BUNDLES_DIR, { recursive: true });
  await writeFile(join(BUNDLES_DIR, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}

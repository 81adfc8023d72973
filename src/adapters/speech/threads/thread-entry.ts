import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHARE_ENV, Worker } from 'node:worker_threads';

/**
 * Where the thread entry `name` is, seen from the module at `moduleUrl` (its `import.meta.url`). Run
 * from the sources (tsx, vitest) it is the TypeScript file beside that module; in a bundle it is
 * `<name>.mjs` beside the bundle, emitted there by lib/bundling.ts (esbuild does not follow
 * `new URL(..., import.meta.url)`).
 */
export function threadEntry(moduleUrl: string, name: string): URL {
  if (moduleUrl.endsWith('.ts')) return new URL(`./${name}.ts`, moduleUrl);
  // In a thread bundled from the sources, `import.meta.url` is its bundle's, with no `<name>.mjs`
  // beside it: the thread it starts is bundled from its source in turn.
  const source = bundledFromSources?.[name];
  return source ? new URL(source) : new URL(`./${name}.mjs`, moduleUrl);
}

declare const NOTES_THREAD_SOURCES: Record<string, string> | undefined;
/**
 * Set (by esbuild's `define`) only in a thread's bundle made by `bundledEntry`: entry name -> the URL
 * of its source, or of its bundle when it was bundled before (`nestedThreadBundles`).
 */
const bundledFromSources = typeof NOTES_THREAD_SOURCES === 'undefined' ? undefined : NOTES_THREAD_SOURCES;

const THREAD_ENTRY = /threadEntry\(\s*import\.meta\.url,\s*'([\w-]+)'\s*\)/g;

/**
 * Every thread entry the sources name (`threadEntry(import.meta.url, '<name>')`, as
 * scripts/local-server-bundle.mjs finds them), by name: the file URL of `<name>.ts` beside the source
 * that names it. Read from the `src` directory of the checkout that holds `entrySource`.
 */
function threadSources(entrySource: string): Record<string, string> {
  let root = dirname(entrySource);
  while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root);
  const sources: Record<string, string> = {};
  const src = join(root, 'src');
  if (!existsSync(src)) return sources;
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const path = join(src, file);
    for (const [, name] of readFileSync(path, 'utf8').matchAll(THREAD_ENTRY)) {
      if (name) sources[name] = pathToFileURL(join(dirname(path), `${name}.ts`)).href;
    }
  }
  return sources;
}

export interface ThreadOptions {
  /** Handed to the thread as `workerData` (structured-cloned). */
  workerData?: unknown;
  /** The thread sees and changes this process's environment (else it gets a copy at start). */
  shareEnv?: boolean;
  /**
   * Run from the sources, leave the entry's npm packages out of its bundle and load them from
   * node_modules as they are: needed for native modules (classic-level's prebuilt binary, loaded
   * relative to its own files) and for code that patches a package's shared modules.
   */
  packagesExternal?: boolean;
  /**
   * With `packagesExternal`: split the bundle where the entry imports modules dynamically, so that
   * modules (and the packages they import) load only when imported. One file would import every
   * package any of them names when the thread starts: the queue workers' thread, whose handlers are
   * imported by name, held ~100 MiB more at idle that way.
   */
  splitting?: boolean;
}

/**
 * Starts a worker thread on `entry`, without the process's command-line options (a thread needs none,
 * and some break it: `node --input-type=module -e` makes a file entry fail to load). A TypeScript
 * entry runs as a bundle made from it once per process (`bundledEntry`).
 */
export function startThread(entry: URL, options: ThreadOptions = {}): Worker {
  const worker = new Worker(runnableEntry(entry, options), {
    execArgv: profilingOptions(process.execArgv),
    ...(options.workerData === undefined ? {} : { workerData: options.workerData }),
    ...(options.shareEnv ? { env: SHARE_ENV } : {}),
    stdout: true,
    stderr: true,
  });
  printedHere(worker.stdout, (line) => console.info(line));
  printedHere(worker.stderr, (line) => console.error(line));
  return worker;
}

/**
 * A thread's output goes through this thread's console, line by line, rather than straight to the
 * process's streams: where the console is redirected (a test runner holding back a passing test's
 * lines), the thread's log lines follow it.
 */
function printedHere(stream: Readable, print: (line: string) => void): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) print(line);
  });
  stream.on('end', () => {
    if (partial) print(partial);
  });
}

/**
 * The file Node runs for `entry` (a thread's, or a child process's such as whisper-process.ts): a
 * TypeScript entry is bundled once per process (`bundledEntry`), a bundled one is run as it is.
 */
export function runnableEntry(
  entry: URL,
  options: Pick<ThreadOptions, 'packagesExternal' | 'splitting'> = {},
): URL {
  return entry.pathname.endsWith('.ts')
    ? bundledEntry(entry, options.packagesExternal ?? false, options.splitting ?? false)
    : entry;
}

/**
 * The CPU-profiling options of this process (`--cpu-prof`, `--cpu-prof-dir=...`, as the benchmarks'
 * BENCH_CPU_PROF passes them): a profiled process profiles its threads too, each into its own file,
 * else the emulators' thread would be missing from the profile of a service under load.
 */
export function profilingOptions(execArgv: readonly string[]): string[] {
  return execArgv.filter((option) => /^--cpu-prof(-dir|-interval)?(=|$)/.test(option));
}

const bundles = new Map<string, URL>();

/**
 * Run from the sources (`npm start`, tests), a thread's TypeScript entry is bundled with esbuild, as
 * the Lambda bundles are, into a temporary directory removed when the process exits (or, with its
 * packages left out or when `cached`, into node_modules/.cache/notes-threads/, named by content, see
 * `packagesCacheDir`). Measured: a
 * thread on the bundle holds ~9 MiB, one that registers tsx's loader ~37 MiB and compiles every module
 * again (on Node 20 an `--import tsx` in the thread's options is not applied to its entry either).
 * esbuild is a development dependency, loaded only here: bundles never take this path.
 */
function bundledEntry(
  entry: URL,
  packagesExternal: boolean,
  splitting: boolean,
  cached = packagesExternal,
): URL {
  const key = `${entry.href} ${packagesExternal} ${splitting} ${cached}`;
  const known = bundles.get(key);
  if (known) return known;
  const source = fileURLToPath(entry);
  const name = basename(source, '.ts');
  // Where it goes is known first: the inline source map names the sources relative to it.
  const dir = cached ? packagesCacheDir(source) : temporaryDir();
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const common = {
    entryPoints: [source],
    write: false,
    bundle: true,
    ...(packagesExternal ? { packages: 'external' as const } : {}),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    // Bundled CommonJS code may `require` Node built-ins, which an ES module does not have. The
    // import is renamed: bundled sources may import createRequire themselves.
    banner: {
      js: "import { createRequire as threadCreateRequire } from 'node:module'; const require = threadCreateRequire(import.meta.url);",
    },
    logLevel: 'error',
    // A thread that starts threads of its own (the queue workers' thread starts the diarizer's)
    // finds their sources through this (see `threadEntry`).
    define: { NOTES_THREAD_SOURCES: JSON.stringify(threadSources(source)) },
  } satisfies import('esbuild').BuildOptions;
  if (packagesExternal && splitting) {
    const nested = { NOTES_THREAD_SOURCES: JSON.stringify(nestedThreadBundles(esbuild, common, dir, name)) };
    const url = splitBundle(esbuild, { ...common, define: nested }, dir, name);
    bundles.set(key, url);
    return url;
  }
  const [output] = esbuild.buildSync({ ...common, outfile: join(dir, `${name}.mjs`) }).outputFiles;
  if (!output) throw new Error(`esbuild wrote no bundle for ${source}`);
  let outfile = output.path;
  if (cached) {
    // Named by content: processes and checkouts that share the node_modules never overwrite one
    // another's, and a killed process leaves nothing behind that grows (the same sources reuse the
    // file, touched on each use; versions unused for a week go).
    const hash = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
    outfile = join(dir, `${name}-${hash}.mjs`);
    if (existsSync(outfile)) {
      const now = new Date();
      utimesSync(outfile, now, now);
    } else {
      const partial = `${outfile}.${process.pid}.partial`;
      writeFileSync(partial, output.contents);
      renameSync(partial, outfile);
      removeUnusedBundles(dir);
    }
  } else {
    writeFileSync(outfile, output.contents);
  }
  const url = pathToFileURL(outfile);
  bundles.set(key, url);
  return url;
}

/**
 * The threads that the entry's modules start, bundled now, on this thread, by name. Bundled in the
 * entry's thread instead, esbuild would start a worker thread and a service process of its own
 * there, which stay for the life of the process (~50 MiB more in the queue workers' case). Found in
 * the modules a first build of the entry reads.
 */
function nestedThreadBundles(
  esbuild: typeof import('esbuild'),
  options: import('esbuild').BuildOptions,
  dir: string,
  name: string,
): Record<string, string> {
  const { metafile } = esbuild.buildSync({
    ...options,
    outdir: join(dir, `${name}-building`),
    splitting: true,
    metafile: true,
  });
  const nested: Record<string, string> = {};
  for (const input of Object.keys(metafile?.inputs ?? {})) {
    if (!input.endsWith('.ts') || input.includes('node_modules')) continue;
    const path = resolve(input);
    for (const [, entryName] of readFileSync(path, 'utf8').matchAll(THREAD_ENTRY)) {
      if (!entryName || entryName === name) continue;
      // With the options its callers start it with (the diarizer's: the defaults), kept where its
      // name stays the same from run to run, and so does the bundle that names it.
      const entry = pathToFileURL(join(dirname(path), `${entryName}.ts`));
      nested[entryName] = bundledEntry(entry, false, false, true).href;
    }
  }
  return nested;
}

/**
 * A split bundle: `<name>.mjs` and its chunks in a directory named by their content, beside the
 * single-file bundles (and used and removed as they are). Built for a directory at the same depth, so
 * that the source maps' relative paths hold where the files end up.
 */
function splitBundle(
  esbuild: typeof import('esbuild'),
  options: import('esbuild').BuildOptions,
  dir: string,
  name: string,
): URL {
  const building = join(dir, `${name}-building`);
  const outputs =
    esbuild.buildSync({
      ...options,
      outdir: building,
      splitting: true,
      entryNames: name,
      chunkNames: 'chunk-[hash]',
      // ES modules, wherever they lie (no package.json says so there).
      outExtension: { '.js': '.mjs' },
    }).outputFiles ?? [];
  const hash = createHash('sha256');
  for (const output of outputs) hash.update(relative(building, output.path)).update(output.contents);
  const final = join(dir, `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(final)) {
    const now = new Date();
    utimesSync(final, now, now);
  } else {
    const partial = `${final}.${process.pid}.partial`;
    for (const output of outputs) {
      const path = join(partial, relative(building, output.path));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, output.contents);
    }
    // Another process may have written the same files meanwhile: theirs serve as well.
    try {
      renameSync(partial, final);
    } catch {
      rmSync(partial, { recursive: true, force: true });
    }
    removeUnusedBundles(dir);
  }
  return pathToFileURL(join(final, `${name}.mjs`));
}

const UNUSED_BUNDLE_MS = 7 * 24 * 3600 * 1000;

function removeUnusedBundles(dir: string): void {
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    // Another process may be removing the same files.
    const mtimeMs = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    if (Date.now() - mtimeMs > UNUSED_BUNDLE_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** A bundle that carries its packages needs nothing around it: a directory removed at exit. */
function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'notes-thread-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A bundle that imports its packages must sit where they resolve: under the node_modules that serves
 * `source` (its real path: a linked node_modules is where Node resolves from), in
 * `.cache/notes-threads/`, where tools keep such files.
 */
function packagesCacheDir(source: string): string {
  for (let dir = dirname(source); dirname(dir) !== dir; dir = dirname(dir)) {
    const nodeModules = join(dir, 'node_modules');
    if (!existsSync(nodeModules)) continue;
    const cache = join(realpathSync(nodeModules), '.cache', 'notes-threads');
    mkdirSync(cache, { recursive: true });
    return cache;
  }
  throw new Error(`no node_modules above ${source}`);
}

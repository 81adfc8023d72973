import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Where the thread entry `name` is, seen from the module at `moduleUrl` (its `import.meta.url`). Run
 * from the sources (tsx, vitest) it is the TypeScript file beside that module; in a bundle it is
 * `<name>.mjs` beside the bundle, emitted there by lib/bundling.ts (esbuild does not follow
 * `new URL(..., import.meta.url)`).
 */
export function threadEntry(moduleUrl: string, name: string): URL {
  return new URL(moduleUrl.endsWith('.ts') ? `./${name}.ts` : `./${name}.mjs`, moduleUrl);
}

/**
 * Starts a worker thread on `entry`, without the process's command-line options (a thread needs none,
 * and some break it: `node --input-type=module -e` makes a file entry fail to load). A TypeScript
 * entry runs as a bundle made from it once per process (`bundledEntry`).
 */
export function startThread(entry: URL): Worker {
  return new Worker(entry.pathname.endsWith('.ts') ? bundledEntry(entry) : entry, { execArgv: [] });
}

const bundles = new Map<string, URL>();

/**
 * Run from the sources (`npm start`, tests), a thread's TypeScript entry is bundled with esbuild, as
 * the Lambda bundles are, into a temporary directory removed when the process exits. Measured: a
 * thread on the bundle holds ~9 MiB, one that registers tsx's loader ~37 MiB and compiles every module
 * again (on Node 20 an `--import tsx` in the thread's options is not applied to its entry either).
 * esbuild is a development dependency, loaded only here: bundles never take this path.
 */
function bundledEntry(entry: URL): URL {
  const known = bundles.get(entry.href);
  if (known) return known;
  const dir = mkdtempSync(join(tmpdir(), 'notes-thread-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, `${basename(entry.pathname, '.ts')}.mjs`);
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    entryPoints: [fileURLToPath(entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    // Bundled CommonJS code may `require` Node built-ins, which an ES module does not have.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  const url = pathToFileURL(outfile);
  bundles.set(entry.href, url);
  return url;
}

/**
 * The start-up bundle of `npm start` (scripts/start.mjs): bin/local-server.ts and every module it
 * reaches, bundled by esbuild into node_modules/.cache/notes-local-server/, so that a start loads a
 * few prepared files instead of compiling and resolving hundreds of TypeScript sources and package
 * files through tsx. It is fresh while no source it holds (nor package.json, tsconfig.json, the
 * installed packages or this file) changed since it was made; checking costs a stat per source (a few
 * ms). When one did, `npm start` runs the sources through tsx and has this file, run as a script
 * (`node scripts/local-server-bundle.mjs`), bundle them again in the background for the next start:
 * an edit is live at once, and bundling (1,600 files, a few seconds on a busy machine) never delays it.
 *
 * - Each handler (functions/*.ts, imported by name in src/local/handler-modules.ts) is its own chunk, loaded
 *   when first imported; each worker-thread entry (`threadEntry(import.meta.url, '<name>')` in a
 *   source, src/adapters/speech/threads/thread-entry.ts) is `<name>.mjs` beside the chunks, where
 *   threadEntry() looks for it in a bundle (esbuild does not follow `new Worker(url)`).
 * - Packages are bundled too (resolving hundreds of package files is most of a start's import time),
 *   except dynalite (native LevelDB, and src/local/database-faults.ts patches its own `level`),
 *   esbuild (a binary, used at run time to build the web app and threads). The other emulators'
 *   packages (s3rver, local-aws-sqs) are bundled: they load in the emulators' own thread, from
 *   src/local/emulator-packages.ts.
 * - Source maps (linked, without the sources) make stack traces point at the .ts files; the launcher
 *   turns them on. `import.meta.dirname` and `import.meta.filename` keep meaning the source file's
 *   place (src/local/runtime.ts finds the repository from it); `import.meta.url` is the bundle's.
 * - Each build has its own directory; `current.json` names the one in use. A process marks the build
 *   it runs (`in-use/<pid>`), so that a later build removes only directories no live process uses.
 *
 * Plain Node (no TypeScript): it runs before anything compiles TypeScript.
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { constants, setPriority } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Files outside the bundle's inputs whose change must also make a new bundle. */
const ALWAYS_WATCHED = ['package.json', 'tsconfig.json', 'node_modules/.package-lock.json'];

const THIS_FILE = fileURLToPath(import.meta.url);

/**
 * @typedef {object} BundleOptions
 * @property {string} root the checkout (the directory of package.json)
 * @property {Record<string, string> | (() => Record<string, string>)} entryPoints output name ->
 *   source, relative to root (a function: asked only when bundling)
 * @property {string[]} [external] packages loaded from node_modules as they are
 * @property {string} [cacheDir] where builds go (default: node_modules/.cache/notes-local-server/<checkout>)
 * @property {(line: string) => void} [log]
 */

/**
 * @typedef {object} Bundle
 * @property {string} dir the build's directory (`<entry name>.mjs` per entry point)
 * @property {boolean} built whether this call made it (false: the last one was still fresh)
 */

/**
 * The entry points of the local server's bundle: bin/local-server.ts and every thread entry a source
 * under src/ names with `threadEntry(import.meta.url, '<name>')` (the TypeScript file beside it).
 * @param {string} root
 */
export function localServerEntryPoints(root) {
  /** @type {Record<string, string>} */
  const entries = { 'local-server': 'bin/local-server.ts' };
  const src = join(root, 'src');
  for (const file of readdirSync(src, { recursive: true })) {
    const path = join(src, String(file));
    if (!path.endsWith('.ts')) continue;
    for (const [, name] of readFileSync(path, 'utf8').matchAll(THREAD_ENTRY)) {
      entries[name] = relative(root, join(dirname(path), `${name}.ts`));
    }
  }
  return entries;
}

const THREAD_ENTRY = /threadEntry\(\s*import\.meta\.url,\s*'([\w-]+)'\s*\)/g;

/** The packages the local server's bundle leaves to node_modules (see above). */
export const LOCAL_SERVER_EXTERNAL = ['dynalite', 'esbuild'];

/**
 * The last bundle made, if it is fresh, marked as used by this process; null if there is none or a
 * source changed since.
 * @param {Pick<BundleOptions, 'root' | 'cacheDir'>} options
 * @returns {Bundle | null}
 */
export function currentBundle(options) {
  const cacheDir = options.cacheDir ?? defaultCacheDir(options.root);
  const current = readCurrent(cacheDir);
  if (!current || !isFresh(options.root, current)) return null;
  const dir = join(cacheDir, current.build);
  // Marked before it is checked: a build finishing meanwhile removes only builds nobody marked.
  markInUse(dir);
  if (!readdirSync(dir).some((name) => name.endsWith('.mjs'))) return null;
  return { dir, built: false };
}

/**
 * The bundle of `entryPoints`, made now if none is fresh, and marked as used by this process.
 * @param {BundleOptions} options
 * @returns {Promise<Bundle>}
 */
export async function freshBundle(options) {
  const fresh = currentBundle(options);
  if (fresh) return fresh;
  const cacheDir = options.cacheDir ?? defaultCacheDir(options.root);
  mkdirSync(cacheDir, { recursive: true });
  const dir = await build(options, cacheDir);
  removeUnusedBuilds(cacheDir, basename(dir));
  return { dir, built: true };
}

/**
 * Per checkout, under the node_modules that serves it (its real path: worktrees may share one).
 * @param {string} root
 */
export function defaultCacheDir(root) {
  const checkout = createHash('sha256').update(realpathSync(root)).digest('hex').slice(0, 12);
  return join(realpathSync(join(root, 'node_modules')), '.cache', 'notes-local-server', checkout);
}

/**
 * @typedef {object} Current
 * @property {string} build directory name under the cache
 * @property {Record<string, number | null>} stamps input (relative to root) -> its mtime when bundled
 */

/** @returns {Current | null} */
function readCurrent(cacheDir) {
  try {
    return JSON.parse(readFileSync(join(cacheDir, 'current.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** @param {Current} current */
function isFresh(root, current) {
  for (const [path, mtime] of Object.entries(current.stamps)) {
    if (mtimeOf(join(root, path)) !== mtime) return false;
  }
  return true;
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * @param {BundleOptions} options
 * @param {string} cacheDir
 */
async function build(options, cacheDir) {
  const started = Date.now();
  const id = `build-${started}-${process.pid}`;
  const dir = join(cacheDir, id);
  // Marked before writing, so that a concurrent start's clean-up leaves it alone.
  markInUse(dir);
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: options.root,
    entryPoints: typeof options.entryPoints === 'function' ? options.entryPoints() : options.entryPoints,
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Prefer packages' ESM builds, as the Lambda bundles do (lib/bundling.ts).
    mainFields: ['module', 'main'],
    external: options.external ?? [],
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    // Bundled CommonJS code may `require` Node built-ins, which an ES module does not have.
    banner: {
      js: "import { createRequire as notesCreateRequire } from 'node:module'; const require = notesCreateRequire(import.meta.url);",
    },
    plugins: [sourcePlaces],
    logLevel: 'error',
  });
  /** @type {Record<string, number | null>} */
  const stamps = {};
  const watched = [
    ...Object.keys(result.metafile.inputs).filter((input) => !input.split('/').includes('node_modules')),
    ...ALWAYS_WATCHED,
    relative(options.root, THIS_FILE),
  ];
  for (const input of watched) {
    const mtime = mtimeOf(join(options.root, input));
    // Changed while bundling: which version went in is unknown, so the next start bundles again.
    stamps[input] = mtime !== null && mtime >= started ? -1 : mtime;
  }
  const temporary = join(cacheDir, `current.json.${process.pid}`);
  writeFileSync(temporary, `${JSON.stringify({ build: id, stamps })}\n`);
  renameSync(temporary, join(cacheDir, 'current.json'));
  options.log?.(`bundled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

/**
 * `import.meta.dirname` and `import.meta.filename` of a source keep naming the source's place, not
 * the bundle's (src/local/runtime.ts and web/build.ts find files beside them).
 * @type {import('esbuild').Plugin}
 */
const sourcePlaces = {
  name: 'source-places',
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, async ({ path }) => {
      if (path.split(sep).includes('node_modules')) return undefined;
      const text = await readFile(path, 'utf8');
      if (!text.includes('import.meta.dirname') && !text.includes('import.meta.filename')) return undefined;
      return {
        loader: path.endsWith('x') ? 'tsx' : 'ts',
        contents: text
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
          .replaceAll('import.meta.filename', JSON.stringify(path)),
      };
    });
  },
};

/** This process runs the build in `dir`: a file named by its pid, checked by removeUnusedBuilds. */
function markInUse(dir) {
  mkdirSync(join(dir, 'in-use'), { recursive: true });
  writeFileSync(join(dir, 'in-use', String(process.pid)), '');
}

/** Removes every build but `keep` that no live process marked as in use. */
function removeUnusedBuilds(cacheDir, keep) {
  for (const name of readdirSync(cacheDir)) {
    if (name === keep || !name.startsWith('build-')) continue;
    const dir = join(cacheDir, name);
    let users = [];
    try {
      users = readdirSync(join(dir, 'in-use')).map(Number);
    } catch {
      // Never marked, or half removed already: nobody runs it.
    }
    if (users.some(isAlive)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

/** The entry `name`'s file in a build. */
export function entryFile(bundle, name) {
  return resolve(bundle.dir, `${name}.mjs`);
}

/**
 * Run as a script (by scripts/start.mjs, in the background, at the lowest CPU priority): makes the
 * local server's bundle if it is not fresh. What it says goes to `last-build.log` in the cache.
 */
if (process.argv[1] && resolve(process.argv[1]) === THIS_FILE) {
  try {
    // esbuild, started below, inherits it: the service starting meanwhile comes first.
    setPriority(constants.priority.PRIORITY_LOWEST);
  } catch {
    // Not allowed here: it then competes for the CPU like any process.
  }
  const root = join(dirname(THIS_FILE), '..');
  await freshBundle({
    root,
    entryPoints: () => localServerEntryPoints(root),
    external: LOCAL_SERVER_EXTERNAL,
    log: (line) => process.stderr.write(`${line}\n`),
  });
}

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
 * entry first registers tsx's loader in the thread: each thread has its own module loader, vitest's
 * transform does not reach it, and on Node 20 an `--import tsx` in the thread's options is not
 * applied to its entry (measured), a `register()` is.
 */
export function startThread(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { execArgv: [] });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, execArgv: [] });
}

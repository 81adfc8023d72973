#!/usr/bin/env node
/**
 * `npm start`, in one Node process: installs what is missing (scripts/ensure-deps.mjs), makes the
 * start-up bundle again if a source changed since the last start (scripts/local-server-bundle.mjs),
 * then runs bin/local-server.ts from it, with stack traces mapped to the .ts sources. Measured with
 * `npm run bench -- start` (docs/benchmarks.md, "Start-up").
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

performance.mark('launcher:entry');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureDeps('start');
performance.mark('launcher:deps-checked');

// Loaded only now: it imports esbuild when it bundles, which the line above may have installed.
const { entryFile, freshBundle, LOCAL_SERVER_EXTERNAL, localServerEntryPoints } = await import(
  './local-server-bundle.mjs'
);
let bundle;
try {
  bundle = await freshBundle({
    root,
    entryPoints: () => localServerEntryPoints(root),
    external: LOCAL_SERVER_EXTERNAL,
    log: (line) => process.stderr.write(`[start] ${line}\n`),
  });
} catch (error) {
  // esbuild has printed where the sources do not compile.
  process.stderr.write(`[start] ${error instanceof Error ? error.message.split('\n')[0] : error}\n`);
  process.exit(1);
}
performance.mark(bundle.built ? 'launcher:bundle-built' : 'launcher:bundle-checked');

process.setSourceMapsEnabled(true);
await import(pathToFileURL(entryFile(bundle, 'local-server')).href);

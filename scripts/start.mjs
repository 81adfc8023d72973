#!/usr/bin/env node
/**
 * `npm start`, in one Node process: installs what is missing (scripts/ensure-deps.mjs), then runs
 * bin/local-server.ts from the start-up bundle (scripts/local-server-bundle.mjs) when no source
 * changed since it was made, with stack traces mapped to the .ts sources. When one did, it runs the
 * sources through tsx, as every start did before (the edit is live at once), and bundles them again
 * in the background, at the lowest CPU priority, for the next start. Measured with
 * `npm run bench -- start` (docs/benchmarks.md, "Start-up").
 *
 * package.json runs it as `node --max-semi-space-size=4 scripts/start.mjs`: V8 grows each young
 * generation up to 3 x 16 MiB for allocation throughput, which the API never needed, while the
 * recognisers and decoders beside it need the memory (the service's peak during a long transcription
 * fell by about a fifth; docs/benchmarks.md, "Throughput"). Tests and benchmarks launch it with the
 * same flags (scripts/start-command.mjs).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

performance.mark('launcher:entry');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureDeps('start');
performance.mark('launcher:deps-checked');

// Loaded only now: the line above may have installed the packages it uses.
const { currentBundle, defaultCacheDir, entryFile } = await import('./local-server-bundle.mjs');
const bundle = currentBundle({ root });

if (bundle) {
  performance.mark('launcher:bundle-checked');
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(entryFile(bundle, 'local-server')).href);
} else {
  performance.mark('launcher:bundle-stale');
  process.stderr.write(
    '[start] no start-up bundle of these sources yet (first start, or a source changed): running them through tsx, bundling them in the background\n',
  );
  bundleInBackground(defaultCacheDir(root));
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'bin', 'local-server.ts')).href);
}

/** A process of its own (it lowers its own priority), which ends once the bundle is written. */
function bundleInBackground(cacheDir) {
  mkdirSync(cacheDir, { recursive: true });
  const log = openSync(join(cacheDir, 'last-build.log'), 'w');
  const child = spawn(process.execPath, [join(root, 'scripts', 'local-server-bundle.mjs')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', log, log],
  });
  child.unref();
}

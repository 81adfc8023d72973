#!/usr/bin/env node
/**
 * The container image's build stage: copies what the local runtime needs at run time, and nothing
 * else, into a release directory that the image's final stage copies to /app. Plain Node, no
 * dependencies.
 *
 * - The checkout without node_modules (sources, docs/public, the contract: the start-up bundle
 *   checks the sources' modification times, and the runtime reads the docs and the web app's sources).
 * - From node_modules, only the packages the start-up bundle leaves out and loads at run time, with
 *   every package they depend on (from node_modules/.package-lock.json): dynalite (the database
 *   emulator, native LevelDB), esbuild (builds the web app on each start), preact (the web app's
 *   imports), ajv and ajv-formats (named by strings in code ajv generates), whisper.cpp's prebuilt
 *   binding for the platform (a native module, loaded by path). Everything else the
 *   runtime uses is inside the bundle (scripts/local-server-bundle.mjs): the development tools
 *   (TypeScript, vitest, the CDK, Playwright, biome) stay out of the image.
 * - node_modules/.package-lock.json and node_modules/.cache/notes-local-server (the bundle), with
 *   their modification times: the bundle is current only while they and the sources are unchanged.
 *
 * Usage: node scripts/container/runtime-files.mjs <release directory>   (run from the checkout)
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNTIME_PACKAGES = ['dynalite', 'esbuild', 'preact', 'ajv', 'ajv-formats'];
/**
 * whisper.cpp's prebuilt binding, loaded by path at run time, and koffi, through which its C API is
 * called; where this platform has the binding installed.
 */
const WHISPER_BINDING = `@fugood/node-whisper-${process.platform}-${process.arch}`;
/** sherpa-onnx-node (the diarizer's voice model), with its prebuilt module for this platform. */
const VOICE_PACKAGES = ['sherpa-onnx-node'];

/** Each package's path in node_modules (lockfile keys) and its dependencies, resolved as Node does. */
export function packageClosure(lockPackages, roots) {
  const resolve = (name, from) => {
    // From `node_modules/a/node_modules/b`, look in b's node_modules, then a's, then the top.
    let base = from;
    for (;;) {
      const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
      if (lockPackages[candidate]) return candidate;
      if (!base) return null;
      const at = base.lastIndexOf('/node_modules/');
      base = at === -1 ? '' : base.slice(0, at);
    }
  };
  const found = new Set();
  const pending = roots.map((name) => {
    const path = resolve(name, '');
    if (!path) throw new Error(`${name} is not installed (node_modules/.package-lock.json)`);
    return path;
  });
  while (pending.length > 0) {
    const path = pending.pop();
    if (found.has(path)) continue;
    found.add(path);
    const entry = lockPackages[path];
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}),
    ];
    for (const name of names) {
      const dependency = resolve(name, path);
      // An optional dependency for another platform (esbuild's) is not installed: nothing to copy.
      if (dependency && !lockPackages[dependency].optional) pending.push(dependency);
      else if (dependency && existsSync(join(root, dependency))) pending.push(dependency);
    }
  }
  return [...found].sort();
}

function main(release) {
  if (!release) throw new Error('usage: node scripts/container/runtime-files.mjs <release directory>');
  mkdirSync(release, { recursive: true });
  for (const name of readdirSync(root)) {
    if (name === 'node_modules') continue;
    cpSync(join(root, name), join(release, name), { recursive: true, preserveTimestamps: true });
  }
  const lockFile = join(root, 'node_modules', '.package-lock.json');
  const { packages } = JSON.parse(readFileSync(lockFile, 'utf8'));
  const roots = [
    ...RUNTIME_PACKAGES,
    ...(packages[`node_modules/${WHISPER_BINDING}`] ? [WHISPER_BINDING, 'koffi'] : []),
    ...VOICE_PACKAGES.filter((name) => packages[`node_modules/${name}`]),
  ];
  const closure = packageClosure(packages, roots).filter((path) => existsSync(join(root, path)));
  for (const path of closure) {
    cpSync(join(root, path), join(release, path), {
      recursive: true,
      preserveTimestamps: true,
      verbatimSymlinks: true,
    });
  }
  for (const path of ['node_modules/.package-lock.json', 'node_modules/.cache/notes-local-server']) {
    cpSync(join(root, path), join(release, path), { recursive: true, preserveTimestamps: true });
  }
  process.stderr.write(
    `runtime-files: ${closure.length} packages: ${closure.map((p) => p.replace(/^.*node_modules\//, '')).join(' ')}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv[2]);

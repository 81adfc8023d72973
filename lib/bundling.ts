import { basename, dirname, join } from 'node:path';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * How every handler is bundled, in one place: the stack (NodejsFunction and its esbuild CLI calls) and
 * `bench/bundle-size.ts` (esbuild's JS API) both read these settings, so the measured bundles are the
 * deployed ones.
 */
export const handlerBundle = {
  format: 'esm',
  /** The Lambda runtime is nodejs22.x. */
  target: 'node22',
  minify: true,
  sourceMap: true,
  /**
   * Mappings only: stack traces need them, the embedded sources would only make the .map file (and
   * the work `--enable-source-maps` does on a cold start) bigger.
   */
  sourcesContent: false,
  /** Prefer packages' ESM builds: they tree-shake, the CommonJS builds do not. */
  mainFields: ['module', 'main'],
  /**
   * Some bundled CommonJS code calls `require` for Node built-ins, which an ES module does not have:
   * define it. The alias keeps the banner from clashing with a bundled `createRequire` import.
   */
  banner:
    "import { createRequire as notesCreateRequire } from 'node:module'; const require = notesCreateRequire(import.meta.url);",
  /**
   * Bundle the AWS SDK v3 too instead of using the runtime's copy: the version is the one pinned in
   * package-lock.json (the one the tests ran against), and tree-shaking drops what is not used.
   */
  externalModules: [] as string[],
  /**
   * What a handler loads with `import()` (the tracer, the token verifier, the S3 and SQS adapters)
   * goes into chunks beside index.mjs and is read only when first used: a cold start compiles only
   * what the handler imports statically.
   */
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: '.mjs',
} as const;

/** `NODE_OPTIONS` of every function: stack traces point at the TypeScript sources. */
export const handlerNodeOptions = '--enable-source-maps';

/**
 * Worker-thread entries a handler starts (src/adapters/speech/threads/): each is bundled on its own as
 * `<name>.mjs` beside the handler's index.mjs, where `threadEntry()` looks for it, because esbuild does
 * not follow `new Worker(new URL(...))`. The transcription worker diarizes for engines without speaker
 * labels (src/wiring/worker-services.ts).
 */
export const handlerThreads: Readonly<Record<string, readonly string[]>> = {
  transcriptionWorker: ['src/adapters/speech/diarization/diarizer-thread.ts'],
};

/** The file a thread entry is bundled to, beside index.mjs. */
export function threadBundleName(entry: string): string {
  return `${basename(entry, '.ts')}.mjs`;
}

/**
 * The NodejsFunction bundling settings of the handler whose entry is `entry` (relative to the
 * repository root). NodejsFunction runs esbuild with `--outfile`, which cannot split code; the
 * afterBundling hook bundles the entry again with splitting into the same folder, replacing that
 * index.mjs with one that loads its chunks/ on demand (the bundle `bench -- bundles` measures), and
 * bundles the handler's thread entries beside it.
 */
export function lambdaBundling(entry: string, handler?: string): BundlingOptions {
  const threads = (handler && handlerThreads[handler]) || [];
  return {
    format: OutputFormat.ESM,
    target: handlerBundle.target,
    minify: handlerBundle.minify,
    sourceMap: handlerBundle.sourceMap,
    sourcesContent: handlerBundle.sourcesContent,
    mainFields: [...handlerBundle.mainFields],
    banner: handlerBundle.banner,
    externalModules: [...handlerBundle.externalModules],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        splitBundleCommand(inputDir, outputDir, entry, 'index'),
        ...threads.map((thread) => splitBundleCommand(inputDir, outputDir, thread, basename(thread, '.ts'))),
      ],
    },
  };
}

/** The esbuild CLI call that bundles one entry as `<name>.mjs` (chunks beside it) with the handlers' settings. */
function splitBundleCommand(inputDir: string, outputDir: string, entry: string, name: string): string {
  const args = [
    join(inputDir, 'node_modules', '.bin', 'esbuild'),
    '--bundle',
    join(inputDir, entry),
    '--platform=node',
    `--format=${handlerBundle.format}`,
    `--target=${handlerBundle.target}`,
    `--outdir=${outputDir}`,
    `--entry-names=${name}`,
    ...(handlerBundle.splitting ? ['--splitting', `--chunk-names=${handlerBundle.chunkNames}`] : []),
    `--out-extension:.js=${handlerBundle.outExtension}`,
    ...(handlerBundle.minify ? ['--minify'] : []),
    ...(handlerBundle.sourceMap ? ['--sourcemap', `--sources-content=${handlerBundle.sourcesContent}`] : []),
    `--main-fields=${handlerBundle.mainFields.join(',')}`,
    `--banner:js=${handlerBundle.banner}`,
    ...handlerBundle.externalModules.map((module) => `--external:${module}`),
    '--log-level=warning',
  ];
  return args.map(shellQuote).join(' ');
}

function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The same bundle through esbuild's JS API (what the stack's bundling produces): `outfile` names the
 * entry's output (`<dir>/index.mjs`); chunks land in `<dir>/chunks/`.
 */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [{ in: entry, out: basename(outfile, handlerBundle.outExtension) }],
    outdir: dirname(outfile),
    splitting: handlerBundle.splitting,
    chunkNames: handlerBundle.chunkNames,
    outExtension: { '.js': handlerBundle.outExtension },
    bundle: true,
    platform: 'node',
    format: handlerBundle.format,
    target: handlerBundle.target,
    minify: handlerBundle.minify,
    sourcemap: handlerBundle.sourceMap,
    sourcesContent: handlerBundle.sourcesContent,
    mainFields: [...handlerBundle.mainFields],
    banner: { js: handlerBundle.banner },
    external: [...handlerBundle.externalModules],
    logLevel: 'warning',
  };
}

import { basename, join } from 'node:path';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * How every handler is bundled, in one place: the stack (NodejsFunction runs the esbuild CLI) and
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

/** The NodejsFunction bundling settings of `handler` (its threads' entries bundled beside it). */
export function lambdaBundling(handler?: string): BundlingOptions {
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
    ...(threads.length > 0
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) =>
              threads.map((entry) => threadBundleCommand(inputDir, outputDir, entry)),
          },
        }
      : {}),
  };
}

/** The esbuild CLI call that bundles one thread entry with the handlers' settings (local bundling). */
function threadBundleCommand(inputDir: string, outputDir: string, entry: string): string {
  const args = [
    join(inputDir, 'node_modules', '.bin', 'esbuild'),
    '--bundle',
    join(inputDir, entry),
    '--platform=node',
    `--format=${handlerBundle.format}`,
    `--target=${handlerBundle.target}`,
    `--outfile=${join(outputDir, threadBundleName(entry))}`,
    ...(handlerBundle.minify ? ['--minify'] : []),
    ...(handlerBundle.sourceMap ? ['--sourcemap', `--sources-content=${handlerBundle.sourcesContent}`] : []),
    `--main-fields=${handlerBundle.mainFields.join(',')}`,
    `--banner:js=${handlerBundle.banner}`,
    '--log-level=warning',
  ];
  return args.map(shellQuote).join(' ');
}

function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The same bundle through esbuild's JS API (what NodejsFunction's `esbuild --bundle` call produces). */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
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

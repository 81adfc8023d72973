import { basename, dirname, join } from 'node:path';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';
import type { Needs } from '../src/routes.ts';
import { repositoryRoot } from './paths.ts';

/**
 * How every handler is bundled, in one place: the stack (`handlerCode`) and `bench/bundle-size.ts` both
 * call `bundleHandler`, so the measured bundles are the deployed ones.
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

export interface HandlerBundleOptions {
  /** The function's `needs` (src/routes.ts): what it does not need, its bundle does not wire. */
  needs?: Needs;
  /** Worker-thread entries (relative to the repository root) bundled beside index.mjs. */
  threads?: readonly string[];
}

/**
 * Bundles one handler into `outDir` as the stack deploys it and `bench -- bundles` measures it: one
 * esbuild run with splitting (index.mjs, chunks/), then one per thread entry. Returns the metafile of
 * the handler's own build.
 */
export function bundleHandler(entry: string, outDir: string, options: HandlerBundleOptions = {}): Metafile {
  const { metafile } = buildSync({
    ...esbuildOptions(entry, join(outDir, `index${handlerBundle.outExtension}`), options.needs),
    metafile: true,
  });
  for (const thread of options.threads ?? []) {
    buildSync(esbuildOptions(join(repositoryRoot, thread), join(outDir, threadBundleName(thread))));
  }
  return metafile as Metafile;
}

/**
 * esbuild's options for one entry: `outfile` names the entry's output (`<dir>/index.mjs`); chunks
 * land in `<dir>/chunks/`. With `needs`, the adapters the function does not need are left out of
 * the bundle (`wiringDefines`); without, everything is wired, as in unbundled code.
 */
export function esbuildOptions(entry: string, outfile: string, needs?: Needs): BuildOptions {
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
    define: needs ? wiringDefines(needs) : {},
    logLevel: 'warning',
  };
}

/**
 * The constants src/wiring/services.ts reads to wire S3 and SQS: false where the function's `needs`
 * hold no `objects` (no `queue`), so esbuild drops that branch and the bundle references neither the
 * adapter nor its SDK client (not even the protocol code S3 and SQS share with DynamoDB).
 */
export function wiringDefines(needs: Needs): Record<string, string> {
  return {
    NOTES_BUNDLE_WIRES_OBJECTS: String(needs.objects !== undefined && needs.objects.length > 0),
    NOTES_BUNDLE_WIRES_QUEUE: String(needs.queue !== undefined),
  };
}

import { basename, dirname, join } from 'node:path';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';
import { derivedJsonSchemas } from '../src/adapters/llm/schema.ts';
import { TEXT_ENGINES, type TextEngine } from '../src/config.ts';
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

/**
 * The text engine the stack deploys: `NOTES_TEXT_ENGINE` of every function (lib/notes-stack.ts), and
 * so the engine every function's bundle is wired for (lib/constructs/notes-function.ts passes the
 * function's setting to `bundleHandler`; `bench -- bundles` uses this value).
 */
export const STACK_TEXT_ENGINE: TextEngine = 'bedrock';

/**
 * The text engine a function's bundle is wired for: the `NOTES_TEXT_ENGINE` its environment sets (the
 * default of src/config.ts where it sets none), so the bundle and the setting cannot disagree.
 */
export function textEngineOf(environment: Record<string, string>): TextEngine {
  const engine = environment.NOTES_TEXT_ENGINE ?? 'local';
  const known: readonly string[] = TEXT_ENGINES;
  if (!known.includes(engine)) {
    throw new Error(`NOTES_TEXT_ENGINE=${engine} is none of ${TEXT_ENGINES.join(', ')}`);
  }
  return engine as TextEngine;
}

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

/** What a bundle is wired for; what is not given is wired in full, as in unbundled code. */
export interface BundleWiring {
  /** The function's `needs` (src/routes.ts): what it does not need, its bundle does not wire. */
  needs?: Needs;
  /** The function's `NOTES_TEXT_ENGINE`: the other text engines are not in its bundle. */
  textEngine?: TextEngine;
}

export interface HandlerBundleOptions extends BundleWiring {
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
    ...esbuildOptions(entry, join(outDir, `index${handlerBundle.outExtension}`), options),
    metafile: true,
  });
  for (const thread of options.threads ?? []) {
    buildSync(esbuildOptions(join(repositoryRoot, thread), join(outDir, threadBundleName(thread))));
  }
  return metafile as Metafile;
}

/**
 * esbuild's options for one entry: `outfile` names the entry's output (`<dir>/index.mjs`); chunks
 * land in `<dir>/chunks/`. With `needs` and `textEngine`, the adapters the function does not need
 * are left out of the bundle (`wiringDefines`); without, everything is wired, as in unbundled code.
 */
export function esbuildOptions(entry: string, outfile: string, wiring: BundleWiring = {}): BuildOptions {
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
    external: [...handlerBundle.externalModules, ...unusedModules(wiring)],
    define: { ...jsonSchemaDefines(), ...wiringDefines(wiring) },
    logLevel: 'warning',
  };
}

/**
 * The NLP library and its 3.5 MB English model, which only the local (extractive) text engine loads,
 * with a dynamic import. A bundle wired for another engine compiles out the branch that would make
 * that engine, but esbuild still emits a chunk for every dynamic import of a module it keeps (it keeps
 * modules that may have side effects), so the model rode along unused; left external, nothing is
 * emitted for it, and nothing could import it.
 */
const LOCAL_TEXT_ENGINE_MODULES = ['wink-nlp', 'wink-eng-lite-web-model'];

function unusedModules({ textEngine }: BundleWiring): string[] {
  return textEngine && textEngine !== 'local' ? LOCAL_TEXT_ENGINE_MODULES : [];
}

/**
 * The constants the wiring reads (all undefined in unbundled code, which wires everything):
 * - `NOTES_BUNDLE_WIRES_OBJECTS` / `_QUEUE` (src/wiring/services.ts): false where the function's
 *   `needs` hold no `objects` (no `queue`), so esbuild drops that branch and the bundle references
 *   neither the adapter nor its SDK client (not even the protocol code S3 and SQS share with DynamoDB).
 * - `NOTES_BUNDLE_TEXT_ENGINE` (src/wiring/text-engine-choice.ts, ask-services.ts,
 *   generation-services.ts): the one text engine the bundle wires; the other engines' adapters (and
 *   the Bedrock client, the OpenAI chat adapter) are not in it, and a bundle configured for another
 *   engine at run time fails naming both.
 */
export function wiringDefines({ needs, textEngine }: BundleWiring): Record<string, string> {
  return {
    ...(needs
      ? {
          NOTES_BUNDLE_WIRES_OBJECTS: String(needs.objects !== undefined && needs.objects.length > 0),
          NOTES_BUNDLE_WIRES_QUEUE: String(needs.queue !== undefined),
        }
      : {}),
    ...(textEngine ? { NOTES_BUNDLE_TEXT_ENGINE: JSON.stringify(textEngine) } : {}),
  };
}

/**
 * The JSON schemas the LLM providers are given (src/adapters/llm/schema.ts), derived here at build
 * time from the same zod schemas, so a bundle carries them as JSON text and not zod's `toJSONSchema`
 * (~20 KB of cold start). Derived once per process: the stack bundles ~40 functions.
 */
let jsonSchemas: Record<string, string> | undefined;
function jsonSchemaDefines(): Record<string, string> {
  if (!jsonSchemas) {
    jsonSchemas = { NOTES_BUNDLE_JSON_SCHEMAS_BUILT: 'true' };
    for (const [name, schema] of Object.entries(derivedJsonSchemas())) {
      jsonSchemas[`NOTES_BUNDLE_JSON_SCHEMA_${name.toUpperCase()}`] = JSON.stringify(JSON.stringify(schema));
    }
  }
  return jsonSchemas;
}

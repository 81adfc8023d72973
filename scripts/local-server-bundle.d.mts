/** Types of scripts/local-server-bundle.mjs (plain Node, so that it runs before anything compiles TypeScript). */
export interface BundleOptions {
  /** The checkout (the directory of package.json). */
  root: string;
  /** Output name -> source, relative to root (a function: asked only when bundling). */
  entryPoints: Record<string, string> | (() => Record<string, string>);
  /** Packages loaded from node_modules as they are. */
  external?: string[];
  /** Where builds go (default: node_modules/.cache/notes-local-server/<checkout>). */
  cacheDir?: string;
  log?: (line: string) => void;
}

export interface Bundle {
  /** The build's directory (`<entry name>.mjs` per entry point). */
  dir: string;
  /** Whether this call made it (false: the last one was still fresh). */
  built: boolean;
}

export function localServerEntryPoints(root: string): Record<string, string>;
export const LOCAL_SERVER_EXTERNAL: string[];
export function currentBundle(options: Pick<BundleOptions, 'root' | 'cacheDir'>): Bundle | null;
export function freshBundle(options: BundleOptions): Promise<Bundle>;
export function defaultCacheDir(root: string): string;
export function entryFile(bundle: Bundle, name: string): string;

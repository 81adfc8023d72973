import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, type BuildResult, build, buildSync, stop } from 'esbuild';
import { WEB_APP_CALLBACK_PATH, WEB_APP_SIGN_IN_SCOPES } from '../src/oauth/first-party.ts';

/**
 * Builds the web app into memory: one minified ES module (Preact and the app) and one stylesheet,
 * each named by a hash of its content so it can be cached for good, and the page that loads them.
 * The local runtime serves the result; the CDK stack uploads it to the app's bucket.
 */
export interface WebAppFile {
  /** URL path, e.g. `/app/assets/app-3KX2.js`. */
  path: string;
  contentType: string;
  body: Buffer;
  /** Named by content: cacheable for a year. The page itself is never cached. */
  immutable: boolean;
}

const WEB_DIR = import.meta.dirname;
export const APP_ASSETS_PATH = '/app/assets';
/** The paths that answer with the app's page: the root and the OAuth callback. */
export const APP_PAGE_PATHS = ['/', WEB_APP_CALLBACK_PATH] as const;

/** Synchronous, so the CDK app (whose constructs are built synchronously) can call it too. */
export function buildWebApp(): WebAppFile[] {
  return webAppFilesOf(buildSync(WEB_APP_BUILD));
}

let buildsRunning = 0;

/**
 * The same build, without blocking (the local runtime starts its emulators meanwhile), for a process
 * that runs for long and builds nothing more: esbuild's service process stays alive after a build,
 * for the next one, which never comes (~20 MiB for the life of `npm start`, measured), so it is
 * stopped once no build of this process is running. A later build starts it again.
 */
export async function buildWebAppAsync(): Promise<WebAppFile[]> {
  buildsRunning++;
  try {
    return webAppFilesOf(await build(WEB_APP_BUILD));
  } finally {
    buildsRunning--;
    if (buildsRunning === 0) void stop();
  }
}

const WEB_APP_BUILD = {
  entryPoints: { app: join(WEB_DIR, 'src', 'main.tsx'), styles: join(WEB_DIR, 'styles.css') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022', 'chrome111', 'firefox113', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: 'out',
  write: false,
  legalComments: 'linked',
  logLevel: 'silent',
  tsconfig: join(WEB_DIR, 'tsconfig.json'),
} satisfies BuildOptions;

function webAppFilesOf(result: BuildResult<typeof WEB_APP_BUILD>): WebAppFile[] {
  const assets = result.outputFiles.map((file) => ({
    name: file.path.split(/[\\/]/).pop() ?? '',
    body: Buffer.from(file.contents),
  }));
  const named = (prefix: string, extension: string) => {
    const asset = assets.find((file) => file.name.startsWith(`${prefix}-`) && file.name.endsWith(extension));
    if (!asset) throw new Error(`The web app build made no ${prefix}${extension}`);
    return asset.name;
  };
  const page = readFileSync(join(WEB_DIR, 'index.html'), 'utf8')
    .replace('%SCRIPT%', named('app', '.js'))
    .replace('%STYLES%', named('styles', '.css'));
  const files: WebAppFile[] = assets.map((asset) => ({
    path: `${APP_ASSETS_PATH}/${asset.name}`,
    contentType: contentTypeOf(asset.name),
    body: asset.body,
    immutable: true,
  }));
  files.push({
    path: '/index.html',
    contentType: 'text/html; charset=utf-8',
    body: Buffer.from(page),
    immutable: false,
  });
  return files;
}

function contentTypeOf(name: string): string {
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (name.endsWith('.css')) return 'text/css; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

/**
 * What the app reads at start (`/app/config.json`): where the API and the sign-in are, and the
 * service's settings the app tells people about.
 */
export interface WebAppConfig {
  api_base_url: string;
  issuer: string;
  client_id: string;
  resource: string;
  scopes: string[];
  /**
   * Days a note the retention moved to the trash stays there before it is deleted for good: the
   * operator's NOTES_TRASH_DAYS (the deploy context `trashDays` on AWS).
   */
  trash_days: number;
}

/**
 * The configuration for an app whose API (and OAuth issuer) is at `apiUrl`; `''` when both share the
 * page's origin (the local runtime): the app then resolves the paths against the address it was
 * loaded from, whichever of the service's names that was. `trashDays`: the service's trash period.
 */
export function webAppConfig(apiUrl: string, clientId: string, trashDays: number): WebAppConfig {
  return {
    api_base_url: apiUrl || '/',
    issuer: apiUrl || '/',
    client_id: clientId,
    resource: `${apiUrl}/v1`,
    // Permanent deletion is asked for when a person first deletes (in place, and then ticked for
    // them on the consent page), not at sign-in where it would sit unticked and unexplained.
    scopes: [...WEB_APP_SIGN_IN_SCOPES],
    trash_days: trashDays,
  };
}

export interface PageSources {
  /** Origins the app calls: the API, the sign-in server, the object store (uploads). */
  connect: readonly string[];
  /** Origins of the recordings and podcasts it plays (presigned object URLs). */
  media: readonly string[];
}

/**
 * The headers every page and asset of the app is served with. The policy allows scripts and styles
 * from the app's own origin only (no inline code, no eval), so injected markup cannot run; framing
 * is refused (clickjacking); no referrer leaks a note ID to another site.
 */
export function appSecurityHeaders(sources: PageSources): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${sources.connect.join(' ')}`.trim(),
    `media-src 'self' blob: ${sources.media.join(' ')}`.trim(),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

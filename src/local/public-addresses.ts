/**
 * Where the local runtime's two exposed listeners (the API and the object store) listen, and the URLs
 * it hands out for them when those differ from the listening address: in a container (listening on
 * every interface, reached through published ports) or behind a reverse proxy. The database and queue
 * emulators always stay on 127.0.0.1 (src/local/emulators.ts): only this process talks to them.
 *
 * - NOTES_LISTEN_HOST: an IP address (default 127.0.0.1, this machine only; 0.0.0.0 or :: for every
 *   interface, as the container image sets).
 * - NOTES_PUBLIC_URL: the API's origin as clients reach it (the OAuth issuer and MCP resource, the
 *   web app's origin). Default: the listening address, 127.0.0.1 for a wildcard one.
 * - NOTES_STORAGE_PUBLIC_URL: the object store's origin as browsers and clients reach it (presigned
 *   upload and download URLs point there). Default: the listening address, likewise.
 *
 * Both must be origins (no path): the OAuth metadata lives at the root, and presigned URLs are signed
 * for the Host a browser will send, which the object store checks.
 */
import { isIP } from 'node:net';
import { StartUpProblem } from './start-up-problem.ts';

export const DEFAULT_LISTEN_HOST = '127.0.0.1';

export interface PublicAddresses {
  /** The interface the API and the object store listen on. */
  listenHost: string;
  /** The API's public origin, when set. */
  publicUrl?: string;
  /** The object store's public origin, when set. */
  storagePublicUrl?: string;
}

const ORIGIN = /^https?:\/\/[^/?#\s]+\/?$/;

/** The settings from the environment; a wrong one is a StartUpProblem that names it and an example. */
export function publicAddressesFromEnv(env: NodeJS.ProcessEnv): PublicAddresses {
  const listenHost = env.NOTES_LISTEN_HOST?.trim() || DEFAULT_LISTEN_HOST;
  if (isIP(listenHost) === 0) {
    throw new StartUpProblem(
      `NOTES_LISTEN_HOST must be an IP address to listen on, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface, as in a container); got '${listenHost}'`,
    );
  }
  const publicUrl = origin(env, 'NOTES_PUBLIC_URL', 'http://localhost:8787');
  const storagePublicUrl = origin(env, 'NOTES_STORAGE_PUBLIC_URL', 'http://localhost:8788');
  return {
    listenHost,
    ...(publicUrl ? { publicUrl } : {}),
    ...(storagePublicUrl ? { storagePublicUrl } : {}),
  };
}

function origin(env: NodeJS.ProcessEnv, name: string, example: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  let valid = ORIGIN.test(value);
  if (valid) {
    try {
      new URL(value);
    } catch {
      valid = false;
    }
  }
  if (!valid) {
    throw new StartUpProblem(
      `${name} must be an http(s) origin with no path, as clients reach it, e.g. ${example} or https://notes.example.com; got '${value}'`,
    );
  }
  // Every client is handed this origin (the OAuth metadata, presigned URLs): a user name or password
  // in it would be published, so the value is not echoed either. Past the check above (no path), an
  // `@` can only end a userinfo.
  if (value.includes('@')) {
    throw new StartUpProblem(
      `${name} must not contain a user name or password (user:password@), since every client is shown it; give the origin alone, e.g. ${example} or https://notes.example.com`,
    );
  }
  return value.replace(/\/+$/, '');
}

/** The URL of a listener on `host`: a wildcard address is reached at 127.0.0.1. */
export function listenerUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return `http://${DEFAULT_LISTEN_HOST}:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

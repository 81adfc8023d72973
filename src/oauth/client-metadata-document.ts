import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { checkApplicationType } from './application-type.ts';
import { OAuthError } from './errors.ts';
import { type PinnedGet, pinnedGet } from './pinned-request.ts';
import { checkRedirectUri } from './redirect-uris.ts';
import { lifetimes } from './settings.ts';
import type { OAuthClient } from './store.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, used by MCP clients):
 * a `client_id` that is an https URL names a JSON document, served there, that describes the client.
 * The server fetches it with a timeout and a size cap, follows at most three redirects and only to
 * https, refuses hosts that resolve to private, loopback or link-local addresses (no reaching into
 * the server's network), requires the document's `client_id` to be its own URL, applies the same
 * redirect URI policy as registration, and caches good documents briefly in memory.
 *
 * Each hop's host name is resolved once, every address it resolves to is checked, and the request
 * connects to a checked address (`pinnedGet`): a name that answers a public address to the check and
 * a private one to the connection (DNS rebinding) never reaches the private one.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024;
export const FETCH_TIMEOUT_MS = 5000;
const MAX_REDIRECTS = 3;
const MAX_CACHED = 200;

export type Lookup = (hostname: string) => Promise<string[]>;

export interface ClientMetadataFetcherOptions {
  /** Sends one GET to a URL at an address already checked (default: `pinnedGet()`, over https). */
  get?: PinnedGet;
  /** Resolves a host name to its addresses (default: DNS); called once per hop. */
  lookup?: Lookup;
  now?: () => number;
  timeoutMs?: number;
}

/** Whether a client_id is meant as a metadata document URL (rather than a registered ID). */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

export class ClientMetadataFetcher {
  private readonly cache = new Map<string, { client: OAuthClient; expires: number }>();
  private readonly get: PinnedGet;
  private readonly lookup: Lookup;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(options: ClientMetadataFetcherOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
    this.get = options.get ?? pinnedGet();
    this.lookup = options.lookup ?? dnsLookup;
    this.now = options.now ?? Date.now;
  }

  /** The client the document describes, or `invalid_client` saying why it cannot be used. */
  async resolve(clientId: string): Promise<OAuthClient> {
    const cached = this.cache.get(clientId);
    if (cached && cached.expires > this.now()) return cached.client;
    this.cache.delete(clientId);
    const client = parseDocument(clientId, await this.download(checkClientIdUrl(clientId)), this.now());
    if (this.cache.size >= MAX_CACHED) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(clientId, { client, expires: this.now() + lifetimes.clientMetadataCache * 1000 });
    return client;
  }

  private async download(start: URL): Promise<unknown> {
    let url = start;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      for (let hop = 0; ; hop++) {
        const response = await this.getFromAnyOf(url, await this.publicAddressesOf(url), signal);
        if (response.status >= 300 && response.status < 400) {
          await response.body?.cancel();
          const location = response.headers.get('location');
          if (!location || hop >= MAX_REDIRECTS) throw refuse('redirects too often or without a Location');
          url = new URL(location, url);
          if (url.protocol !== 'https:') throw refuse('redirects to a URL that is not https');
          continue;
        }
        if (response.status !== 200) {
          await response.body?.cancel();
          throw refuse(`answered HTTP ${response.status}`);
        }
        const text = await readCapped(response, MAX_DOCUMENT_BYTES);
        try {
          return JSON.parse(text);
        } catch {
          throw refuse('is not JSON');
        }
      }
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw refuse(`did not answer within ${this.timeoutMs / 1000} s`);
      }
      throw refuse('could not be fetched');
    }
  }

  /** The addresses to connect to: the host's, once every address it resolves to proved public. */
  private async publicAddressesOf(url: URL): Promise<string[]> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.lookup(host);
    } catch {
      throw refuse('names a host that does not resolve');
    }
    if (addresses.length === 0 || addresses.some(isNonPublicAddress)) {
      throw refuse('names a host with a private, loopback or link-local address');
    }
    return addresses;
  }

  /**
   * The first answer from the checked addresses, tried in order (as a browser falls back from an
   * unreachable IPv6 address to IPv4), all within the one time limit.
   */
  private async getFromAnyOf(url: URL, addresses: string[], signal: AbortSignal): Promise<Response> {
    let failure: unknown;
    for (const address of addresses) {
      try {
        return await this.get(url, address, { signal, headers: { accept: 'application/json' } });
      } catch (error) {
        if (signal.aborted) throw error;
        failure = error;
      }
    }
    throw failure;
  }
}

function checkClientIdUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse('is not a valid URL');
  }
  if (url.protocol !== 'https:') throw refuse('must be an https URL');
  if (clientId.includes('#')) throw refuse('must not contain a fragment');
  if (url.username || url.password) throw refuse('must not contain user information');
  if (url.pathname === '/' || url.pathname === '') throw refuse('must have a path');
  if (/\/\.{1,2}(\/|$)/.test(clientId.split('?')[0] ?? '')) throw refuse('must not contain . or .. segments');
  return url;
}

function parseDocument(clientId: string, document: unknown, now: number): OAuthClient {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw refuse('is not a JSON object');
  }
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId) throw refuse('does not name its own URL as client_id');
  const method = doc.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw refuse('must describe a public client (token_endpoint_auth_method none)');
  }
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10) {
    throw refuse('must list between 1 and 10 redirect_uris');
  }
  for (const uri of uris) {
    const check = checkRedirectUri(uri);
    if (!check.ok) throw refuse(`has a redirect URI that ${check.reason}`);
  }
  const applicationType = checkApplicationType(doc.application_type, uris as string[]);
  if (!applicationType.ok) throw refuse(`says application_type, but ${applicationType.reason}`);
  const name = typeof doc.client_name === 'string' ? cleanName(doc.client_name) : null;
  return {
    client_id: clientId,
    client_name: name,
    redirect_uris: uris as string[],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: null,
    source: 'metadata_document',
    application_type: applicationType.type,
    created_at: now,
  };
}

/** Display names are single-line, trimmed and short; HTML escaping happens when rendering. */
export function cleanName(name: string): string | null {
  const cleaned = Array.from(name, (char) => (isControl(char) ? ' ' : char))
    .join('')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, 100);
  return cleaned.length > 0 ? cleaned : null;
}

/** C0 controls and DEL. */
export function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

async function readCapped(response: Response, cap: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > cap) {
    await response.body?.cancel();
    throw refuse(`is larger than ${cap} bytes`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw refuse(`is larger than ${cap} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function dnsLookup(hostname: string): Promise<string[]> {
  return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** Loopback, private (RFC 1918, RFC 4193), link-local, CGNAT, unspecified, multicast and reserved. */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped?.[1] ?? address;
  if (isIP(ip) === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    );
  }
  const lower = ip.toLowerCase();
  return (
    lower === '::' ||
    lower === '::1' ||
    /^f[cd]/.test(lower) ||
    /^fe[89ab]/.test(lower) ||
    lower.startsWith('ff') ||
    lower.startsWith('64:ff9b:') ||
    lower.startsWith('2001:db8:')
  );
}

function refuse(reason: string): OAuthError {
  return new OAuthError('invalid_client', `The client metadata document ${reason}`, 400);
}

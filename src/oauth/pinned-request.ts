import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';

/**
 * One GET to an https URL, connected to `address` (already resolved and checked by the caller) rather
 * than to whatever the host name resolves to at connection time: a second DNS answer (DNS rebinding)
 * cannot move the request to another address. The URL's host name still goes out as the TLS server
 * name (SNI) and the Host header, and the certificate is verified against it as usual. Redirects are
 * not followed (the caller checks each hop's address itself); every request opens its own connection,
 * so a pooled socket to an earlier address is never reused.
 */
export type PinnedGet = (
  url: URL,
  address: string,
  init: { signal: AbortSignal; headers: Record<string, string> },
) => Promise<Response>;

/** Statuses whose response has no body (a `Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export interface PinnedGetOptions {
  /** Extra trusted certificates (PEM): tests serving a self-signed certificate. */
  ca?: string;
}

export function pinnedGet(options: PinnedGetOptions = {}): PinnedGet {
  return (url, address, init) =>
    new Promise<Response>((resolve, reject) => {
      if (url.protocol !== 'https:') {
        reject(new Error('Only https URLs are fetched'));
        return;
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const outgoing = request(
        {
          host,
          port: url.port === '' ? 443 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: init.headers,
          // Name lookups answer the checked address only; an IP literal is connected to as it is.
          lookup: lookupOnly(address),
          servername: isIP(host) ? undefined : host,
          ...(options.ca ? { ca: options.ca } : {}),
          rejectUnauthorized: true,
          agent: false,
          signal: init.signal,
        },
        (incoming) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value === undefined) continue;
            for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
          }
          const status = incoming.statusCode ?? 502;
          if (NULL_BODY_STATUSES.has(status)) incoming.resume();
          const body = NULL_BODY_STATUSES.has(status)
            ? null
            : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status, headers }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
}

/** A `lookup` for net.connect that answers `address` whatever it is asked (both callback forms). */
function lookupOnly(address: string): LookupFunction {
  const family = isIP(address) === 6 ? 6 : 4;
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { s3Error, sendS3Error } from './s3-errors.ts';

/** Browsers upload recordings with a presigned PUT and may fetch results with a presigned GET. */
const ALLOWED_METHODS = ['GET', 'PUT', 'HEAD'];
const EXPOSED_HEADERS = 'ETag';
const MAX_AGE_SECONDS = '3000';
const VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The object store's CORS rule, answered as S3 answers a bucket's CORS configuration: one rule whose
 * origins are the service's own (known only once the API listens) and those the operator configured
 * (NOTES_STORAGE_CORS_ORIGINS). Other origins get no grant; preflights need no credentials.
 */
export class StorageCors {
  private readonly origins = new Set<string>();

  constructor(configured: readonly string[] = []) {
    for (const origin of configured) this.origins.add(normaliseOrigin(origin));
  }

  /** Adds the service's own origin; on a loopback address, its localhost and 127.0.0.1 spellings too. */
  allowServiceOrigin(apiUrl: string): void {
    const url = new URL(apiUrl);
    this.origins.add(url.origin);
    if (LOOPBACK_HOSTS.includes(url.hostname)) {
      for (const host of LOOPBACK_HOSTS)
        this.origins.add(`${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`);
    }
  }

  allowedOrigins(): string[] {
    return [...this.origins];
  }

  /** An OPTIONS request: S3's preflight answer, or its 403 for what the rule does not allow. */
  answerPreflight(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    const method = req.headers['access-control-request-method'];
    if (!origin) {
      sendS3Error(res, s3Error(400, 'BadRequest', 'Insufficient information. Origin request header needed.'));
      return;
    }
    if (!method) {
      sendS3Error(res, s3Error(400, 'BadRequest', 'Invalid Access-Control-Request-Method: null'));
      return;
    }
    res.setHeader('Vary', VARY);
    if (!this.origins.has(origin) || !ALLOWED_METHODS.includes(method)) {
      sendS3Error(
        res,
        s3Error(
          403,
          'AccessForbidden',
          "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
          { Method: method, ResourceType: 'OBJECT' },
        ),
      );
      return;
    }
    const requestedHeaders = req.headers['access-control-request-headers'];
    res.writeHead(200, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
      // The rule allows any header (AllowedHeader *): S3 echoes those requested, lower-cased.
      ...(requestedHeaders ? { 'Access-Control-Allow-Headers': requestedHeaders.toLowerCase() } : {}),
      'Access-Control-Expose-Headers': EXPOSED_HEADERS,
      'Access-Control-Max-Age': MAX_AGE_SECONDS,
      'Access-Control-Allow-Credentials': 'true',
      'Content-Length': '0',
    });
    res.end();
  }

  /** Grant headers on an actual request from an allowed origin; none for any other origin. */
  decorate(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (!origin) return;
    res.setHeader('Vary', VARY);
    if (!this.origins.has(origin) || !ALLOWED_METHODS.includes(req.method ?? '')) return;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
  }
}

/** `scheme://host[:port]` exactly, as browsers send Origin; anything else is a configuration error. */
export function normaliseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`"${value}" is not an origin (expected e.g. https://notes.example.com)`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.origin !== value.replace(/\/$/, '')) {
    throw new Error(
      `"${value}" is not an origin: only scheme://host[:port], no path (e.g. https://notes.example.com)`,
    );
  }
  return url.origin;
}

/** Parses NOTES_STORAGE_CORS_ORIGINS: comma-separated origins. */
export function parseCorsOrigins(value: string | undefined): string[] {
  if (!value?.trim()) return [];
  return value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map(normaliseOrigin);
}

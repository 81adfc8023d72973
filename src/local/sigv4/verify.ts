import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ALGORITHM_IDENTIFIER,
  createScope,
  getCanonicalHeaders,
  type getCanonicalQuery,
  getSigningKey,
  SignatureV4Base,
  UNSIGNED_PAYLOAD,
} from '@smithy/signature-v4';
import type { LocalCredentials } from '../../adapters/aws-client-config.ts';
import { headerValue, readClaims, type SignatureClaims } from './claims.ts';
import type { AuthFailure } from './failures.ts';
import { NodeSha256 } from './node-sha256.ts';

/** The parts of an HTTP request a signature covers, as received (path and query still encoded). */
export interface ReceivedRequest {
  method: string;
  /** The request target as sent: path and optional query, still percent-encoded. */
  target: string;
  headers: IncomingHttpHeaders;
}

export interface VerifierSettings {
  service: 's3' | 'dynamodb' | 'sqs';
  region: string;
  credentials: LocalCredentials;
  /** Presigned URLs are an S3 feature; the JSON services take header signatures only. */
  presignedUrls: boolean;
}

export type Verdict =
  | { ok: true; claims: SignatureClaims }
  | { ok: false; failure: AuthFailure; claims?: SignatureClaims };

/** AWS allows this much clock difference for header signatures (and for presigned URLs dated ahead). */
export const MAX_SKEW_MS = 15 * 60 * 1000;

type SmithyRequest = Parameters<typeof getCanonicalQuery>[0];

/**
 * Recomputes a request's AWS Signature Version 4 with the local credentials and compares it with the
 * one it carries. The canonical request is built by @smithy/signature-v4, the code the SDK signs
 * with, so both sides canonicalise alike; this module only feeds it the request as received.
 *
 * `payloadHash`: for header signatures, what the canonical request's last line must be (S3 takes the
 * x-amz-content-sha256 header, the JSON services the hash of the body received). Presigned URLs use
 * X-Amz-Content-Sha256 from the query, or UNSIGNED-PAYLOAD, as S3 does.
 */
export async function verifySignature(
  request: ReceivedRequest,
  settings: VerifierSettings,
  payloadHash: string,
  now: Date,
): Promise<Verdict> {
  const checked = checkBeforeBody(request, settings, now);
  if (!checked.ok) return checked;
  const { claims, path, decodedQuery, signed } = checked;
  const refuse = (failure: AuthFailure): Verdict => ({ ok: false, failure, claims });

  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = headerValue(request.headers[name]);
    if (value !== undefined) headers[name] = value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of decodedQuery) {
    const existing = query[key];
    query[key] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const smithyRequest = { method: request.method, path, query, headers } as unknown as SmithyRequest;
  const canonicalHeaders = getCanonicalHeaders(smithyRequest, undefined, signed);
  const canonicalRequest = canonicalRequests(settings.service).build(
    smithyRequest,
    canonicalHeaders,
    claims.mechanism === 'header' ? payloadHash : presignedPayloadHash(decodedQuery),
  );
  const scope = createScope(claims.scope.date, claims.scope.region, claims.scope.service);
  const stringToSign = await canonicalRequests(settings.service).stringToSign(
    claims.amzDate,
    scope,
    canonicalRequest,
  );
  const key = await getSigningKey(
    NodeSha256,
    settings.credentials,
    claims.scope.date,
    claims.scope.region,
    claims.scope.service,
  );
  const hmac = new NodeSha256(key);
  hmac.update(stringToSign);
  const expected = Buffer.from(await hmac.digest());
  const given = Buffer.from(claims.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return refuse({ kind: 'mismatch', canonicalRequest, stringToSign });
  }
  return { ok: true, claims };
}

type Checked =
  | {
      ok: true;
      claims: SignatureClaims;
      path: string;
      decodedQuery: Array<[string, string]>;
      signed: Set<string>;
    }
  | { ok: false; failure: AuthFailure; claims?: SignatureClaims };

/**
 * Every check that needs no body: the signature's form, key, scope, time and signed headers. A
 * service whose signature covers the body (DynamoDB, SQS) runs these before reading it, so a request
 * without the right credentials is refused before a byte of its body is read.
 */
export function checkBeforeBody(request: ReceivedRequest, settings: VerifierSettings, now: Date): Checked {
  const queryStart = request.target.indexOf('?');
  const rawPath = queryStart === -1 ? request.target : request.target.slice(0, queryStart);
  const rawQuery = queryStart === -1 ? '' : request.target.slice(queryStart + 1);
  const decodedQuery = decodeQuery(rawQuery);
  const path = settings.service === 's3' ? s3CanonicalPath(rawPath) : rawPath;
  if (!decodedQuery || path === null) {
    return {
      ok: false,
      failure: {
        kind: 'malformed',
        mechanism: 'query',
        message: 'Malformed percent-encoding in the request URI',
      },
    };
  }

  const read = readClaims(request.headers, new URLSearchParams(decodedQuery));
  if ('failure' in read) return { ok: false, failure: read.failure };
  const { claims } = read;
  const refuse = (failure: AuthFailure): Checked => ({ ok: false, failure, claims });

  if (claims.mechanism === 'query' && !settings.presignedUrls) {
    return refuse({
      kind: 'malformed',
      mechanism: 'query',
      message: 'This service does not accept presigned URLs',
    });
  }
  if (claims.accessKeyId !== settings.credentials.accessKeyId) {
    return refuse({ kind: 'unknown-key', accessKeyId: claims.accessKeyId });
  }
  const scopeProblem = checkScope(claims, settings);
  if (scopeProblem) return refuse({ kind: 'malformed', mechanism: claims.mechanism, message: scopeProblem });
  const timeProblem = checkTime(claims, now);
  if (timeProblem) return refuse(timeProblem);

  const signed = new Set(claims.signedHeaders);
  if (!signed.has('host')) {
    return refuse({
      kind: 'malformed',
      mechanism: claims.mechanism,
      message: 'The host header must be signed',
    });
  }
  const unsigned = Object.keys(request.headers).filter(
    (name) => name.startsWith('x-amz-') && !signed.has(name),
  );
  if (unsigned.length > 0) return refuse({ kind: 'unsigned-headers', headers: unsigned });

  return { ok: true, claims, path, decodedQuery, signed };
}

function checkScope(claims: SignatureClaims, settings: VerifierSettings): string | null {
  const { date, region, service, terminator } = claims.scope;
  if (date !== claims.amzDate.slice(0, 8))
    return 'Invalid credential date. Date is not the same as X-Amz-Date.';
  if (region !== settings.region) return `the region '${region}' is wrong; expecting '${settings.region}'`;
  if (service !== settings.service)
    return `the service '${service}' is wrong; expecting '${settings.service}'`;
  if (terminator !== 'aws4_request') return `the credential must end in 'aws4_request', not '${terminator}'`;
  return null;
}

function checkTime(claims: SignatureClaims, now: Date): AuthFailure | null {
  const signedAt = claims.requestTime.getTime();
  if (claims.mechanism === 'header') {
    return Math.abs(now.getTime() - signedAt) > MAX_SKEW_MS
      ? { kind: 'skewed', amzDate: claims.amzDate, now }
      : null;
  }
  const expiresSeconds = claims.expiresSeconds ?? 0;
  const expiredAt = new Date(signedAt + expiresSeconds * 1000);
  if (now.getTime() > expiredAt.getTime()) return { kind: 'expired', expiresSeconds, expiredAt, now };
  if (signedAt - now.getTime() > MAX_SKEW_MS) return { kind: 'not-yet-valid' };
  return null;
}

function presignedPayloadHash(query: Array<[string, string]>): string {
  return query.find(([key]) => key.toLowerCase() === 'x-amz-content-sha256')?.[1] ?? UNSIGNED_PAYLOAD;
}

/** Query pairs decoded once (smithy encodes them again); '+' stays '+', as AWS reads it. */
function decodeQuery(raw: string): Array<[string, string]> | null {
  if (raw === '') return [];
  try {
    return raw
      .split('&')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const separator = pair.indexOf('=');
        const key = separator === -1 ? pair : pair.slice(0, separator);
        const value = separator === -1 ? '' : pair.slice(separator + 1);
        return [decodeURIComponent(key), decodeURIComponent(value)];
      });
  } catch {
    return null;
  }
}

/**
 * S3 signs the object key encoded once (no double encoding, no dot-segment removal). Each segment is
 * decoded and re-encoded strictly (RFC 3986), so a client that left e.g. '(' unencoded signs what
 * S3 and the SDK compute.
 */
function s3CanonicalPath(rawPath: string): string | null {
  try {
    return rawPath
      .split('/')
      .map((segment) =>
        encodeURIComponent(decodeURIComponent(segment)).replace(
          /[!'()*]/g,
          (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
        ),
      )
      .join('/');
  } catch {
    return null;
  }
}

/** Exposes the SDK signer's canonical request and string-to-sign builders. */
class CanonicalRequests extends SignatureV4Base {
  constructor(service: string) {
    super({
      service,
      region: '',
      credentials: { accessKeyId: '', secretAccessKey: '' },
      sha256: NodeSha256,
      // S3 paths are used as given (already encoded once); other services encode them again.
      uriEscapePath: service !== 's3',
    });
  }

  build(request: SmithyRequest, headers: Record<string, string>, payloadHash: string): string {
    return this.createCanonicalRequest(request, headers, payloadHash);
  }

  stringToSign(amzDate: string, scope: string, canonicalRequest: string): Promise<string> {
    return this.createStringToSign(amzDate, scope, canonicalRequest, ALGORITHM_IDENTIFIER);
  }
}

const builders = new Map<string, CanonicalRequests>();
function canonicalRequests(service: string): CanonicalRequests {
  let builder = builders.get(service);
  if (!builder) {
    builder = new CanonicalRequests(service);
    builders.set(service, builder);
  }
  return builder;
}

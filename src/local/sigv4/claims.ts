import type { IncomingHttpHeaders } from 'node:http';
import type { AuthFailure } from './failures.ts';

/** What a request says about its own signature, before anything is checked. */
export interface SignatureClaims {
  mechanism: 'header' | 'query';
  accessKeyId: string;
  /** The credential scope: <date>/<region>/<service>/aws4_request. */
  scope: { date: string; region: string; service: string; terminator: string };
  /** X-Amz-Date (yyyyMMdd'T'HHmmss'Z'). */
  amzDate: string;
  requestTime: Date;
  /** Lower-case header names, as listed by the signer. */
  signedHeaders: string[];
  signature: string;
  /** Presigned URLs only: seconds the URL is valid from X-Amz-Date. */
  expiresSeconds?: number;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const MAX_PRESIGNED_SECONDS = 604_800;
const QUERY_PARAMETERS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Signature',
  'X-Amz-Date',
  'X-Amz-SignedHeaders',
  'X-Amz-Expires',
] as const;

/** Reads the Authorization header or the presigned query parameters; exactly one must be there. */
export function readClaims(
  headers: IncomingHttpHeaders,
  query: URLSearchParams,
): { claims: SignatureClaims } | { failure: AuthFailure } {
  const authorization = headers.authorization;
  const presigned = query.has('X-Amz-Algorithm');
  if (query.has('Signature') || query.has('AWSAccessKeyId')) return { failure: { kind: 'unsupported' } };
  if (authorization !== undefined && presigned) {
    return {
      failure: {
        kind: 'malformed',
        mechanism: 'header',
        message:
          'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
      },
    };
  }
  if (authorization !== undefined) return fromHeader(authorization, headers);
  if (presigned) return fromQuery(query);
  return { failure: { kind: 'missing' } };
}

function fromHeader(
  authorization: string,
  headers: IncomingHttpHeaders,
): { claims: SignatureClaims } | { failure: AuthFailure } {
  const malformed = (message: string) =>
    ({ failure: { kind: 'malformed', mechanism: 'header', message } }) as const;
  const space = authorization.indexOf(' ');
  const algorithm = space === -1 ? authorization : authorization.slice(0, space);
  if (algorithm !== ALGORITHM) return { failure: { kind: 'unsupported' } };
  const components = new Map<string, string>();
  for (const part of authorization.slice(space + 1).split(',')) {
    const separator = part.indexOf('=');
    if (separator === -1) return malformed(`the authorization header is malformed; '${part.trim()}'`);
    components.set(part.slice(0, separator).trim(), part.slice(separator + 1).trim());
  }
  const credential = components.get('Credential');
  const signedHeaders = components.get('SignedHeaders');
  const signature = components.get('Signature');
  if (!credential || !signedHeaders || !signature || components.size !== 3) {
    return malformed(
      'The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    );
  }
  const amzDate = headerValue(headers['x-amz-date']);
  if (!amzDate) return { failure: { kind: 'missing-date' } };
  return assemble('header', { credential, signedHeaders, signature, amzDate }, malformed);
}

function fromQuery(query: URLSearchParams): { claims: SignatureClaims } | { failure: AuthFailure } {
  const malformed = (message: string) =>
    ({ failure: { kind: 'malformed', mechanism: 'query', message } }) as const;
  if (query.get('X-Amz-Algorithm') !== ALGORITHM) {
    return malformed(`X-Amz-Algorithm only supports "${ALGORITHM}"`);
  }
  if (QUERY_PARAMETERS.some((name) => query.getAll(name).length !== 1)) {
    return malformed(
      `Query-string authentication version 4 requires the ${QUERY_PARAMETERS.join(', ')} parameters.`,
    );
  }
  const expires = query.get('X-Amz-Expires') ?? '';
  if (!/^\d{1,7}$/.test(expires) || Number(expires) > MAX_PRESIGNED_SECONDS) {
    return malformed(`X-Amz-Expires must be a number of seconds from 0 to ${MAX_PRESIGNED_SECONDS} (a week)`);
  }
  const assembled = assemble(
    'query',
    {
      credential: query.get('X-Amz-Credential') ?? '',
      signedHeaders: query.get('X-Amz-SignedHeaders') ?? '',
      signature: query.get('X-Amz-Signature') ?? '',
      amzDate: query.get('X-Amz-Date') ?? '',
    },
    malformed,
  );
  if ('claims' in assembled) assembled.claims.expiresSeconds = Number(expires);
  return assembled;
}

function assemble(
  mechanism: SignatureClaims['mechanism'],
  raw: { credential: string; signedHeaders: string; signature: string; amzDate: string },
  malformed: (message: string) => { failure: AuthFailure },
): { claims: SignatureClaims } | { failure: AuthFailure } {
  const parts = raw.credential.split('/');
  const [accessKeyId, date, region, service, terminator] = parts;
  if (parts.length !== 5 || !accessKeyId || !date || !region || !service || !terminator) {
    return malformed(`Error parsing the X-Amz-Credential parameter; '${raw.credential}'`);
  }
  const requestTime = parseAmzDate(raw.amzDate);
  if (!requestTime) return malformed(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`);
  if (!/^[0-9a-f]{64}$/.test(raw.signature))
    return malformed('the signature must be 64 lower-case hex digits');
  return {
    claims: {
      mechanism,
      accessKeyId,
      scope: { date, region, service, terminator },
      amzDate: raw.amzDate,
      requestTime,
      signedHeaders: raw.signedHeaders.split(';'),
      signature: raw.signature,
    },
  };
}

function parseAmzDate(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const time = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second));
  return Number.isNaN(time.getTime()) ||
    time.toISOString().slice(0, 10).replace(/-/g, '') !== value.slice(0, 8)
    ? null
    : time;
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

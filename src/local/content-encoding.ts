import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The compressed forms a static file is kept in. */
export interface EncodedBodies {
  br: Buffer;
  gzip: Buffer;
}

/**
 * A body's compressed forms, made when a client first asks for one and kept: brotli at its best
 * quality costs about 0.1 s for the app's files, which start-up need not pay.
 */
export interface LazyEncodedBodies {
  get(): EncodedBodies;
}

export type ContentCoding = keyof EncodedBodies;

/** Smaller than this, compression saves less than its headers cost. */
const WORTH_COMPRESSING = 1024;

export function encodeBodies(body: string | Buffer): LazyEncodedBodies | undefined {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (bytes.length < WORTH_COMPRESSING) return undefined;
  let made: EncodedBodies | undefined;
  return { get: () => (made ??= compress(bytes)) };
}

function compress(bytes: Buffer): EncodedBodies {
  return {
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzip: gzipSync(bytes, { level: 9 }),
  };
}

/**
 * The coding to answer with, from the request's `Accept-Encoding` (RFC 9110 section 12.5.3): brotli
 * before gzip when both are acceptable, neither when the client names neither (or refuses them with
 * `q=0`); `*` accepts both.
 */
export function negotiateCoding(acceptEncoding: string | undefined): ContentCoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weightOf = (coding: ContentCoding) => weights.get(coding) ?? weights.get('*') ?? 0;
  const best = (['br', 'gzip'] as const)
    .filter((coding) => weightOf(coding) > 0)
    .sort((a, b) => weightOf(b) - weightOf(a))[0];
  return best ?? null;
}

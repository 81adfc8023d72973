import type { ServerResponse } from 'node:http';
import type { DurableFilesystemStore } from './durable-store.ts';
import { s3Error } from './s3-errors.ts';

/** S3 returns at most 1,000 keys per page, whatever max-keys asks for (and echoes what was asked). */
const PAGE_LIMIT = 1000;
const TOKEN_PREFIX = 'notes-list:';

/**
 * The bucket named by a ListObjectsV2 request (`GET /<bucket>?list-type=2`), or null for any other
 * request. Path-style only, as the local clients address the store.
 */
export function listObjectsV2Bucket(method: string | undefined, url: URL): string | null {
  if (method !== 'GET' || url.searchParams.get('list-type') !== '2') return null;
  const match = /^\/([^/]+)\/?$/.exec(url.pathname);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

/**
 * ListObjectsV2, answered here rather than by s3rver: s3rver makes its continuation tokens with DES,
 * which OpenSSL 3 (Node 17 and later) no longer offers, so every truncated listing answered 500. The
 * token here is opaque to clients as on S3: the last key of the page, base64url-encoded.
 */
export async function answerListObjectsV2(
  store: DurableFilesystemStore,
  bucket: string,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const maxKeysParam = query.get('max-keys');
  const maxKeys = maxKeysParam === null ? PAGE_LIMIT : Number(maxKeysParam);
  if (!/^\d+$/.test(maxKeysParam ?? '0') || !Number.isSafeInteger(maxKeys)) {
    throw s3Error(400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range', {
      ArgumentName: 'max-keys',
      ArgumentValue: maxKeysParam ?? '',
    });
  }
  if (query.has('marker')) {
    throw s3Error(400, 'InvalidArgument', 'Marker unsupported with REST.GET.BUCKET in list-type=2', {
      ArgumentName: 'marker',
    });
  }
  const token = query.get('continuation-token');
  const startAfter = token !== null ? keyOfToken(token) : (query.get('start-after') ?? '');
  if (!(await store.getBucket(bucket))) {
    throw s3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
  }
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const result = await page(store, bucket, {
    prefix,
    delimiter,
    startAfter,
    maxKeys: Math.min(maxKeys, PAGE_LIMIT),
  });
  const last = result.last;
  const fetchOwner = query.get('fetch-owner') === 'true';
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    element('Name', bucket),
    element('Prefix', prefix),
    token === null && startAfter ? element('StartAfter', startAfter) : '',
    token !== null ? element('ContinuationToken', token) : '',
    result.isTruncated && last !== undefined ? element('NextContinuationToken', tokenOf(last)) : '',
    element('KeyCount', String(result.objects.length + result.commonPrefixes.length)),
    element('MaxKeys', String(maxKeys)),
    delimiter ? element('Delimiter', delimiter) : '',
    element('IsTruncated', String(result.isTruncated)),
    ...result.objects.map(
      (object) =>
        `<Contents>${element('Key', object.key)}${element('LastModified', object.lastModifiedDate.toISOString())}${element('ETag', object.metadata.etag ?? '')}${element('Size', String(object.size))}${fetchOwner ? '<Owner><ID>local</ID><DisplayName>local</DisplayName></Owner>' : ''}${element('StorageClass', 'STANDARD')}</Contents>`,
    ),
    ...result.commonPrefixes.map((common) => `<CommonPrefixes>${element('Prefix', common)}</CommonPrefixes>`),
    '</ListBucketResult>',
  ].join('');
  res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

type Listing = Awaited<ReturnType<DurableFilesystemStore['listObjects']>>;

/**
 * One page: keys and common prefixes count together toward maxKeys, in key order, as on S3, and the
 * page ends at its last key or prefix (the next page's start). s3rver's store counts keys only and
 * gathers every prefix up to where it stopped, so with a delimiter the store is read whole and cut here.
 */
async function page(
  store: DurableFilesystemStore,
  bucket: string,
  options: { prefix: string; delimiter: string; startAfter: string; maxKeys: number },
): Promise<Listing & { last: string | undefined }> {
  if (options.maxKeys === 0) return { objects: [], commonPrefixes: [], isTruncated: false, last: undefined };
  if (!options.delimiter) {
    const listed = await store.listObjects(bucket, options);
    return { ...listed, last: listed.objects.at(-1)?.key };
  }
  const all = await store.listObjects(bucket, { ...options, maxKeys: Number.POSITIVE_INFINITY });
  type Entry = { name: string; object?: Listing['objects'][number] };
  const entries: Entry[] = [
    ...all.objects.map((object) => ({ name: object.key, object })),
    // A prefix the previous page ended on was returned there: the keys under it are not read again.
    ...all.commonPrefixes.filter((common) => common > options.startAfter).map((common) => ({ name: common })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const kept = entries.slice(0, options.maxKeys);
  return {
    objects: kept.flatMap((entry) => (entry.object ? [entry.object] : [])),
    commonPrefixes: kept.flatMap((entry) => (entry.object ? [] : [entry.name])),
    isTruncated: entries.length > kept.length,
    last: kept.at(-1)?.name,
  };
}

function tokenOf(key: string): string {
  return Buffer.from(`${TOKEN_PREFIX}${key}`, 'utf8').toString('base64url');
}

function keyOfToken(token: string): string {
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  if (!decoded.startsWith(TOKEN_PREFIX)) {
    throw s3Error(400, 'InvalidArgument', 'The continuation token provided is incorrect', {
      ArgumentName: 'continuation-token',
    });
  }
  return decoded.slice(TOKEN_PREFIX.length);
}

function element(name: string, text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<${name}>${escaped}</${name}>`;
}

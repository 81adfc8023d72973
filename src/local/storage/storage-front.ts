import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type S3rver from 's3rver';
import S3Error from 's3rver/lib/models/error.js';
import { LOCAL_REGION, type LocalCredentials } from '../../adapters/aws-client-config.ts';
import { forwardedRequest } from '../forwarded-request.ts';
import { headerValue } from '../sigv4/claims.ts';
import { type VerifierSettings, verifySignature } from '../sigv4/verify.ts';
import { checkedBody } from './checked-body.ts';
import type { StorageCors } from './cors.ts';
import type { DurableFilesystemStore } from './durable-store.ts';
import { KeyedLock } from './keyed-lock.ts';
import { answerListObjectsV2, listObjectsV2Bucket } from './list-objects-v2.ts';
import { s3AuthError, s3Error, sendS3Error } from './s3-errors.ts';

export interface StorageFrontOptions {
  s3rver: S3rver;
  store: DurableFilesystemStore;
  credentials: LocalCredentials;
  cors: StorageCors;
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/**
 * The object store's port: what S3 checks before it touches an object, in front of s3rver (which
 * keeps the objects but checks no Signature V4 at all). Every request except a CORS preflight must
 * be signed with the local credentials (Authorization header or presigned URL), so a URL works for
 * exactly the method, object, headers and time it was signed for; bodies must match their declared
 * length and hash; `If-None-Match: *` makes a PUT store only an absent object, atomically.
 */
export function createStorageFront({
  s3rver,
  store,
  credentials,
  cors,
}: StorageFrontOptions): RequestListener {
  const handleS3 = s3rver.callback();
  const writes = new KeyedLock();
  const settings: VerifierSettings = {
    service: 's3',
    region: LOCAL_REGION,
    credentials,
    presignedUrls: true,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Node keeps the first of several Host headers; which one a signature covered is then ambiguous.
    if (hostHeaderCount(req) !== 1) {
      return sendS3Error(res, s3Error(400, 'InvalidRequest', 'A request must carry exactly one Host header'));
    }
    if (req.method === 'OPTIONS') {
      cors.answerPreflight(req, res);
      return;
    }
    cors.decorate(req, res);

    const contentSha256 = headerValue(req.headers['x-amz-content-sha256']);
    const hashProblem = checkContentSha256(req.headers.authorization !== undefined, contentSha256);
    if (hashProblem) return sendS3Error(res, hashProblem);
    const verdict = await verifySignature(
      { method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers },
      settings,
      contentSha256 ?? '',
      new Date(),
    );
    if (!verdict.ok) return sendS3Error(res, s3AuthError(verdict.failure));

    const url = new URL(req.url ?? '/', 'http://storage');
    const listed = listObjectsV2Bucket(req.method, url);
    if (listed !== null) {
      try {
        return await answerListObjectsV2(store, listed, url.searchParams, res);
      } catch (error) {
        if (error instanceof S3Error) return sendS3Error(res, error);
        throw error;
      }
    }
    if (req.method !== 'PUT' && req.method !== 'POST') {
      void handleS3(req, res);
      return;
    }
    const length = declaredLength(req);
    if (typeof length !== 'number') return sendS3Error(res, length);

    const object = putObjectTarget(req);
    if (object) {
      const preconditionProblem = unsupportedPrecondition(req);
      if (preconditionProblem) return sendS3Error(res, preconditionProblem);
      // Held until the response is over: a second write to the key waits, then sees the first.
      const release = await writes.acquire(`${object.bucket}/${object.key}`);
      res.once('close', release);
      if (req.headers['if-none-match'] === '*' && (await store.existsObject(object.bucket, object.key))) {
        return sendS3Error(
          res,
          s3Error(
            412,
            'PreconditionFailed',
            'At least one of the pre-conditions you specified did not hold',
            {
              Condition: 'If-None-Match',
            },
          ),
        );
      }
    }
    const sha256 = contentSha256 && HEX_SHA256.test(contentSha256) ? contentSha256 : undefined;
    void handleS3(forwardedRequest(req, checkedBody(req, { length, ...(sha256 ? { sha256 } : {}) })), res);
  };

  return (req, res) => {
    handle(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else
        sendS3Error(
          res,
          s3Error(500, 'InternalError', 'We encountered an internal error. Please try again.'),
        );
    });
  };
}

/** RFC 9112: a request with no Host header, or more than one, is answered 400. */
function hostHeaderCount(req: IncomingMessage): number {
  let count = 0;
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    if (req.rawHeaders[index]?.toLowerCase() === 'host') count += 1;
  }
  return count;
}

/** S3 requires x-amz-content-sha256 on header-signed requests; aws-chunked bodies are not supported here. */
function checkContentSha256(headerSigned: boolean, value: string | undefined) {
  if (value === undefined) {
    return headerSigned
      ? s3Error(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256')
      : null;
  }
  if (value === UNSIGNED_PAYLOAD || HEX_SHA256.test(value)) return null;
  if (value.startsWith('STREAMING-')) {
    return s3Error(
      501,
      'NotImplemented',
      'A header you provided implies functionality that is not implemented',
      {
        Header: 'x-amz-content-sha256',
      },
    );
  }
  return s3Error(
    400,
    'InvalidArgument',
    'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.',
    { ArgumentName: 'x-amz-content-sha256', ArgumentValue: value },
  );
}

/** A PUT must say how long its body is (as on S3); a POST without Content-Length has none. */
function declaredLength(req: IncomingMessage) {
  if (req.headers['transfer-encoding'] !== undefined) {
    return s3Error(
      501,
      'NotImplemented',
      'A header you provided implies functionality that is not implemented',
      {
        Header: 'Transfer-Encoding',
      },
    );
  }
  const value = req.headers['content-length'];
  if (value === undefined) {
    return req.method === 'PUT'
      ? s3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.')
      : 0;
  }
  return Number(value);
}

/**
 * The bucket and key of a plain PutObject (or CopyObject): a PUT to /bucket/key whose query holds
 * nothing but signing parameters. Sub-resource PUTs (?tagging, ?partNumber…) are not object writes.
 */
function putObjectTarget(req: IncomingMessage): { bucket: string; key: string } | null {
  if (req.method !== 'PUT') return null;
  const url = new URL(req.url ?? '/', 'http://storage');
  const subresource = [...url.searchParams.keys()].some(
    (name) => !name.toLowerCase().startsWith('x-amz-') && name !== 'x-id',
  );
  const match = /^\/([^/]+)\/(.+)$/.exec(url.pathname);
  if (subresource || !match?.[1] || !match[2]) return null;
  return { bucket: decodeURIComponent(match[1]), key: decodeURIComponent(match[2]) };
}

/** s3rver ignores preconditions on PUT; only the one this front enforces may pass. */
function unsupportedPrecondition(req: IncomingMessage) {
  const ifNoneMatch = req.headers['if-none-match'];
  if (req.headers['if-match'] === undefined && (ifNoneMatch === undefined || ifNoneMatch === '*'))
    return null;
  return s3Error(
    501,
    'NotImplemented',
    'A header you provided implies functionality that is not implemented',
    {
      Header: req.headers['if-match'] === undefined ? 'If-None-Match' : 'If-Match',
    },
  );
}

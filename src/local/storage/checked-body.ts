import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { s3Error } from './s3-errors.ts';

export interface BodyExpectations {
  /** The Content-Length the request declared (and, when signed, the signer declared). */
  length: number;
  /** A hex x-amz-content-sha256: the body must hash to it. */
  sha256?: string;
}

/**
 * The request body as the object store should read it: it ends only if the body had exactly the
 * declared length and, when one was declared, the declared SHA-256. Otherwise it fails with S3's
 * error at the end, so the store discards what it staged and nothing is stored.
 */
export function checkedBody(req: IncomingMessage, expected: BodyExpectations): Transform {
  let received = 0;
  const hash: Hash | undefined = expected.sha256 ? createHash('sha256') : undefined;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      received += chunk.length;
      if (received > expected.length) {
        callback(s3Error(400, 'IncompleteBody', 'The request body is longer than its Content-Length.'));
        return;
      }
      hash?.update(chunk);
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      if (received !== expected.length) {
        callback(
          s3Error(
            400,
            'IncompleteBody',
            'You did not provide the number of bytes specified by the Content-Length HTTP header.',
            {
              NumberBytesExpected: expected.length,
              NumberBytesProvided: received,
            },
          ),
        );
        return;
      }
      const computed = hash?.digest('hex');
      if (expected.sha256 && computed !== expected.sha256.toLowerCase()) {
        callback(
          s3Error(
            400,
            'XAmzContentSHA256Mismatch',
            "The provided 'x-amz-content-sha256' header does not match what was computed.",
            {
              ClientComputedContentSHA256: expected.sha256,
              S3ComputedContentSHA256: computed ?? '',
            },
          ),
        );
        return;
      }
      callback();
    },
  });
  req.pipe(check);
  // A client that disconnects mid-body fails the check too (pipe alone would leave it waiting).
  req.once('error', (error) => check.destroy(error));
  req.once('aborted', () =>
    check.destroy(new Error('the client closed the connection before the end of the body')),
  );
  // If the store stopped reading (a failed check, a full disk), the rest of the body is read and
  // dropped rather than the connection cut, so the client receives the error response.
  check.once('close', () => {
    if (req.complete) return;
    req.unpipe(check);
    req.resume();
  });
  return check;
}

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
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
 *
 * The request is read only once the store reads (so the failure reaches a reader that listens for
 * it); if the store stops reading early, the rest of the body is read and dropped rather than the
 * connection cut, so that the client still receives the error response.
 */
export function checkedBody(req: IncomingMessage, expected: BodyExpectations): Readable {
  let received = 0;
  let reading = false;
  const hash = expected.sha256 ? createHash('sha256') : undefined;

  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > expected.length) {
      body.destroy(s3Error(400, 'IncompleteBody', 'The request body is longer than its Content-Length.'));
      return;
    }
    hash?.update(chunk);
    if (!body.push(chunk)) req.pause();
  };
  const onEnd = () => {
    const problem = verdict();
    if (problem) body.destroy(problem);
    else body.push(null);
  };
  const onClose = () => {
    if (!req.complete) body.destroy(new Error('the client closed the connection before the end of the body'));
  };
  const verdict = () => {
    if (received !== expected.length) {
      return s3Error(
        400,
        'IncompleteBody',
        'You did not provide the number of bytes specified by the Content-Length HTTP header.',
        { NumberBytesExpected: expected.length, NumberBytesProvided: received },
      );
    }
    const computed = hash?.digest('hex');
    if (expected.sha256 && computed !== expected.sha256.toLowerCase()) {
      return s3Error(
        400,
        'XAmzContentSHA256Mismatch',
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
        { ClientComputedContentSHA256: expected.sha256, S3ComputedContentSHA256: computed ?? '' },
      );
    }
    return null;
  };

  const body: Readable = new Readable({
    read() {
      if (!reading) {
        reading = true;
        req.on('data', onData);
        req.once('end', onEnd);
        req.once('close', onClose);
      }
      req.resume();
    },
    destroy(error, callback) {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      // Without a 'data' listener, resume() reads the rest of the body and drops it.
      if (!req.complete) req.resume();
      callback(error);
    },
  });
  return body;
}

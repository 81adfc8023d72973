import type { ServerResponse } from 'node:http';
import S3Error from 's3rver/lib/models/error.js';
import type { AuthFailure } from '../sigv4/failures.ts';

/**
 * S3's error documents (`<Error><Code>…`), built with s3rver's own error class so that errors the
 * front raises and errors s3rver raises look alike, and so that an error thrown into s3rver's
 * request handling (a body that fails its check, a full disk) is answered with its code and status.
 */
export function s3Error(
  status: number,
  code: string,
  message: string,
  detail: Record<string, string | number> = {},
): S3Error {
  const error = new S3Error(code, message, detail);
  // s3rver's table lacks some codes (507, XAmzContentSHA256Mismatch): the status is ours to set.
  error.status = status;
  error.expose = status < 500 || status === 507;
  return error;
}

export function sendS3Error(res: ServerResponse, error: S3Error): void {
  const body = error.toXML();
  res.writeHead(error.status, {
    'Content-Type': 'application/xml',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** S3's answer to each way a signature can fail (as documented for SigV4 and observed on S3). */
export function s3AuthError(failure: AuthFailure): S3Error {
  switch (failure.kind) {
    case 'missing':
      return s3Error(403, 'AccessDenied', 'Access Denied');
    case 'unsupported':
      return s3Error(
        400,
        'InvalidRequest',
        'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
      );
    case 'missing-date':
      return s3Error(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    case 'malformed':
      return failure.mechanism === 'header'
        ? s3Error(400, 'AuthorizationHeaderMalformed', failure.message)
        : s3Error(400, 'AuthorizationQueryParametersError', failure.message);
    case 'unknown-key':
      return s3Error(
        403,
        'InvalidAccessKeyId',
        'The AWS Access Key Id you provided does not exist in our records.',
        {
          AWSAccessKeyId: failure.accessKeyId,
        },
      );
    case 'expired':
      return s3Error(403, 'AccessDenied', 'Request has expired', {
        'X-Amz-Expires': failure.expiresSeconds,
        Expires: isoSeconds(failure.expiredAt),
        ServerTime: isoSeconds(failure.now),
      });
    case 'not-yet-valid':
      return s3Error(403, 'AccessDenied', 'Request is not valid yet');
    case 'skewed':
      return s3Error(
        403,
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
        {
          RequestTime: failure.amzDate,
          ServerTime: isoSeconds(failure.now),
          MaxAllowedSkewMilliseconds: 900000,
        },
      );
    case 'unsigned-headers':
      return s3Error(403, 'AccessDenied', 'There were headers present in the request which were not signed', {
        HeadersNotSigned: failure.headers.join(', '),
      });
    case 'mismatch':
      return s3Error(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        { StringToSign: failure.stringToSign, CanonicalRequest: failure.canonicalRequest },
      );
  }
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

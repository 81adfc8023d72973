/**
 * Why a request's signature was not accepted, independent of the wire protocol: the S3 front renders
 * these as S3's XML errors, the DynamoDB and SQS guards as their JSON errors.
 */
export type AuthFailure =
  /** No Authorization header and no presigned query parameters. */
  | { kind: 'missing' }
  /** Signature Version 2 or another algorithm. */
  | { kind: 'unsupported' }
  /** A header-signed request without X-Amz-Date. */
  | { kind: 'missing-date' }
  | { kind: 'malformed'; mechanism: 'header' | 'query'; message: string }
  | { kind: 'unknown-key'; accessKeyId: string }
  /** Presigned URL past X-Amz-Date + X-Amz-Expires. */
  | { kind: 'expired'; expiresSeconds: number; expiredAt: Date; now: Date }
  /** Presigned URL dated in the future (beyond the allowed clock skew). */
  | { kind: 'not-yet-valid' }
  /** Header-signed request dated more than 15 minutes from now. */
  | { kind: 'skewed'; amzDate: string; now: Date }
  /** x-amz-* headers that change what the request does but were not signed. */
  | { kind: 'unsigned-headers'; headers: string[] }
  | { kind: 'mismatch'; canonicalRequest: string; stringToSign: string };

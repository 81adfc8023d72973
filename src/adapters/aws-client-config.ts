/**
 * SDK client settings shared by the Lambda handlers and the local runtime. On AWS only the region is
 * set and the function's role supplies credentials. With an endpoint (the local stand-ins), static
 * credentials and path-style S3 addressing are added.
 */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface AwsClientConfig {
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** S3 only: s3rver serves buckets by path, and 127.0.0.1 has no bucket subdomains. */
  forcePathStyle?: true;
  /**
   * S3 only: checksums only when an operation requires them. With them on, streamed uploads to s3rver
   * are stored corrupted (aws-chunked bodies), and presigned PUTs from curl or browsers would have to
   * send checksum headers (DESIGN.md section 7). The DynamoDB and SQS clients ignore both settings.
   */
  requestChecksumCalculation: 'WHEN_REQUIRED';
  responseChecksumValidation: 'WHEN_REQUIRED';
}

export function awsClientConfig(region: string, endpoint?: string): AwsClientConfig {
  const common = {
    region,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  } as const;
  if (!endpoint) return common;
  return { ...common, endpoint, credentials: { ...LOCAL_CREDENTIALS }, forcePathStyle: true };
}

/** Settings for a client of one local stand-in. */
export function localAwsClientConfig(endpoint: string): AwsClientConfig {
  return awsClientConfig(LOCAL_REGION, endpoint);
}

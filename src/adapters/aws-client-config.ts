/**
 * SDK client settings shared by the Lambda handlers and the local runtime. On AWS only the region is
 * set and the function's role supplies credentials. With an endpoint (the local stand-ins), the local
 * runtime's own credentials (generated per data directory, see src/local/local-credentials.ts) and
 * path-style S3 addressing are added.
 */
export const LOCAL_REGION = 'us-east-1';

export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface AwsClientConfig {
  region: string;
  endpoint?: string;
  credentials?: LocalCredentials;
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

/** A local stand-in and the credentials it accepts. */
export interface LocalEndpoint {
  endpoint: string;
  credentials: LocalCredentials;
}

export function awsClientConfig(region: string, local?: LocalEndpoint): AwsClientConfig {
  const common = {
    region,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  } as const;
  if (!local) return common;
  return {
    ...common,
    endpoint: local.endpoint,
    credentials: { ...local.credentials },
    forcePathStyle: true,
  };
}

/** Settings for a client of one local stand-in. */
export function localAwsClientConfig(endpoint: string, credentials: LocalCredentials): AwsClientConfig {
  return awsClientConfig(LOCAL_REGION, { endpoint, credentials });
}

/** The configuration fields that choose between AWS and a local stand-in. */
export interface ClientConfigSource {
  AWS_REGION: string;
  NOTES_LOCAL_ACCESS_KEY_ID?: string | undefined;
  NOTES_LOCAL_SECRET_ACCESS_KEY?: string | undefined;
}

/**
 * Settings from the typed configuration: AWS when `endpoint` is unset; otherwise the local stand-in
 * at `endpoint`, which only answers requests signed with the local runtime's credentials.
 */
export function configuredAwsClientConfig(
  config: ClientConfigSource,
  endpoint: string | undefined,
): AwsClientConfig {
  if (!endpoint) return awsClientConfig(config.AWS_REGION);
  const { NOTES_LOCAL_ACCESS_KEY_ID: accessKeyId, NOTES_LOCAL_SECRET_ACCESS_KEY: secretAccessKey } = config;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error(
      `Invalid configuration: ${endpoint} is a local endpoint, which needs NOTES_LOCAL_ACCESS_KEY_ID and NOTES_LOCAL_SECRET_ACCESS_KEY (set by the local runtime)`,
    );
  }
  return awsClientConfig(config.AWS_REGION, { endpoint, credentials: { accessKeyId, secretAccessKey } });
}

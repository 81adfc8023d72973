import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { expect } from 'vitest';
import {
  LOCAL_REGION,
  type LocalCredentials,
  localAwsClientConfig,
} from '../../src/adapters/aws-client-config.ts';
import { NodeSha256 } from '../../src/local/sigv4/node-sha256.ts';
import type { Api } from './api.ts';
import type { UploadTarget } from './transcribe.ts';

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** An S3 client of the local object store, signing with the given credentials. */
export function storageClient(endpoint: string, credentials: LocalCredentials, extra: object = {}): S3Client {
  return new S3Client({ ...localAwsClientConfig(endpoint, credentials), ...extra });
}

/** The object's bytes, or null when there is none. */
export async function storedBytes(s3: S3Client, bucket: string, key: string): Promise<Buffer | null> {
  try {
    const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from((await Body?.transformToByteArray()) ?? []);
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return null;
    throw error;
  }
}

export async function putBytes(
  s3: S3Client,
  bucket: string,
  key: string,
  body: Buffer | string,
): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

export async function accountIdOf(api: Api): Promise<string> {
  return (await api('GET', '/v1/account')).body.account_id as string;
}

/** Submits a note for transcription and returns its upload target (nothing is uploaded). */
export async function uploadTargetFor(
  api: Api,
  noteId: string,
  sizeBytes: number,
  contentType = 'audio/wav',
): Promise<UploadTarget> {
  const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title: 'Storage test', content_type: contentType, size_bytes: sizeBytes },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
  return submitted.body.upload as UploadTarget;
}

/** The S3 error code of an XML error body (`<Code>…</Code>`). */
export async function errorCode(response: Response): Promise<string | undefined> {
  return /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];
}

/**
 * Sends a request signed by the SDK's own signer (header signature), with full control over what is
 * signed and what is sent: for requests no SDK command would make (a body that differs from its
 * declared hash, a skewed date).
 */
interface SignedRequestOptions {
  url: string;
  method: string;
  credentials: LocalCredentials;
  service?: 's3' | 'dynamodb' | 'sqs';
  headers?: Record<string, string>;
  /** What the signature covers; defaults to `body`. */
  signedBody?: string;
  body?: string;
  signingDate?: Date;
}

export async function signedFetch(options: SignedRequestOptions): Promise<Response> {
  const { host: _host, ...headers } = await signedHeaders(options);
  return fetch(new URL(options.url), {
    method: options.method,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** The headers the SDK's signer gives the request (host included), for requests sent by hand. */
export async function signedHeaders(options: SignedRequestOptions): Promise<Record<string, string>> {
  const url = new URL(options.url);
  const service = options.service ?? 's3';
  const signer = new SignatureV4({
    service,
    region: LOCAL_REGION,
    credentials: options.credentials,
    sha256: NodeSha256,
    uriEscapePath: service !== 's3',
  });
  const signedBody = options.signedBody ?? options.body ?? '';
  const signed = await signer.sign(
    {
      method: options.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: {
        host: url.host,
        ...(service === 's3' ? { 'x-amz-content-sha256': sha256(signedBody) } : {}),
        ...options.headers,
      },
      body: signedBody,
    },
    options.signingDate ? { signingDate: options.signingDate } : {},
  );
  return signed.headers;
}

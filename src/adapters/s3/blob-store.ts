import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type BlobStore, StoredObjectUnreadableError, type UploadTarget } from '../../ports/blob-store.ts';

export class S3BlobStore implements BlobStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly uploadUrlTtlSeconds: number,
    /** Signs the presigned URLs: a client for the origin clients reach (locally it may differ from `s3`'s). */
    private readonly presigner: S3Client = s3,
  ) {}

  async presignUpload(key: string, contentType: string, sizeBytes: number): Promise<UploadTarget> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ContentType: contentType,
      ContentLength: sizeBytes,
      IfNoneMatch: '*',
    });
    // Signed, so S3 refuses an upload that differs: Content-Type and Content-Length as declared, and
    // If-None-Match: * so the URL stores the recording once and can never replace it (conditional PUT).
    const url = await getSignedUrl(this.presigner, command, {
      expiresIn: this.uploadUrlTtlSeconds,
      signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']),
    });
    return {
      url,
      method: 'PUT',
      headers: { 'Content-Type': contentType, 'If-None-Match': '*' },
      expires_at: Date.now() + this.uploadUrlTtlSeconds * 1000,
    };
  }

  async presignDownload(key: string, fileName: string): Promise<{ url: string; expires_at: number }> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
    });
    const url = await getSignedUrl(this.presigner, command, { expiresIn: this.uploadUrlTtlSeconds });
    return { url, expires_at: Date.now() + this.uploadUrlTtlSeconds * 1000 };
  }

  async presignPlayback(
    key: string,
    contentType: string,
    expiresInSeconds: number,
  ): Promise<{ url: string; expires_at: number }> {
    // Only the host is signed, so the browser may add Range (seeking) without breaking the signature.
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: 'inline',
      ResponseContentType: contentType,
    });
    const url = await getSignedUrl(this.presigner, command, { expiresIn: expiresInSeconds });
    return { url, expires_at: Date.now() + expiresInSeconds * 1000 };
  }

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    const { size } = await stat(path);
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: JSON.stringify(value),
        ContentType: 'application/json',
      }),
    );
  }

  async getJson<T>(key: string): Promise<T | null> {
    try {
      const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!Body) return null;
      return parseJson<T>(key, await Body.transformToString('utf8'));
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw error;
    }
  }

  async downloadToFile(key: string, path: string): Promise<boolean> {
    try {
      const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!Body) return false;
      await pipeline(Body as Readable, createWriteStream(path));
      return true;
    } catch (error) {
      if (isNoSuchKey(error)) return false;
      throw error;
    }
  }

  async objectSize(key: string): Promise<number | null> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const keys = await this.listKeys(prefix);
      if (keys.length === 0) return;
      await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          // DeleteObjects takes at most 1,000 keys a call.
          Delete: { Objects: keys.slice(0, 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }

  async listKeys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.NextContinuationToken;
    } while (token);
    return keys;
  }
}

/** The parser's message quotes the text: it is replaced by one naming the object only. */
function parseJson<T>(key: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new StoredObjectUnreadableError(key);
  }
}

function isNoSuchKey(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound');
}

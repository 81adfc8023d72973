export interface UploadTarget {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expires_at: number;
}

/** A stored object exists but is not what was written (not JSON): its content is never quoted. */
export class StoredObjectUnreadableError extends Error {
  override readonly name = 'StoredObjectUnreadableError';
  constructor(readonly key: string) {
    super(`The stored object ${key} could not be parsed`);
  }
}

/** Object storage for audio, transcripts and generated results. */
export interface BlobStore {
  /** A URL the client PUTs the bytes to directly (large audio never passes through a function). */
  presignUpload(key: string, contentType: string, sizeBytes: number): Promise<UploadTarget>;
  /** A URL that downloads the object for a limited time (generated audio goes straight to the client). */
  presignDownload(key: string, fileName: string): Promise<{ url: string; expires_at: number }>;
  /**
   * A URL a browser's media element plays the object from (inline, served as `contentType`, Range
   * requests allowed), valid for `expiresInSeconds`.
   */
  presignPlayback(
    key: string,
    contentType: string,
    expiresInSeconds: number,
  ): Promise<{ url: string; expires_at: number }>;
  putJson(key: string, value: unknown): Promise<void>;
  /** Uploads a local file. */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  /** null when there is no such object; StoredObjectUnreadableError when it is not JSON. */
  getJson<T>(key: string): Promise<T | null>;
  /** Streams the object to a local file; false when there is no such object. */
  downloadToFile(key: string, path: string): Promise<boolean>;
  /** The size in bytes of the object stored under `key`; null when there is none. */
  objectSize(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix`. */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys under a prefix (used by tests and deletion checks). */
  listKeys(prefix: string): Promise<string[]>;
}

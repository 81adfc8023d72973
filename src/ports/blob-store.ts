export interface UploadTarget {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expires_at: number;
}

/** Object storage for audio, transcripts and generated results. */
export interface BlobStore {
  /** A URL the client PUTs the bytes to directly (large audio never passes through a function). */
  presignUpload(key: string, contentType: string, sizeBytes: number): Promise<UploadTarget>;
  /** A URL that downloads the object for a limited time (generated audio goes straight to the client). */
  presignDownload(key: string, fileName: string): Promise<{ url: string; expires_at: number }>;
  putJson(key: string, value: unknown): Promise<void>;
  /** Uploads a local file. */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  /** null when there is no such object. */
  getJson<T>(key: string): Promise<T | null>;
  /** Streams the object to a local file; false when there is no such object. */
  downloadToFile(key: string, path: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix`. */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys under a prefix (used by tests and deletion checks). */
  listKeys(prefix: string): Promise<string[]>;
}

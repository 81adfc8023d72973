import type { BlobStore, UploadTarget } from '../ports/blob-store.ts';
import type { GenerationRequest, TranscriptionRequest, WorkQueue } from '../ports/work-queue.ts';

/**
 * Adapters whose module (and AWS SDK client) is imported when a method is first called: in a Lambda
 * bundle the import() is a chunk of its own, so a handler that never stores an object or queues a job
 * never reads the S3 or SQS client (most of a bundle's bytes otherwise).
 */

/** `load` once; a load that failed is tried again on the next call. */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

export class BlobStoreLoadedOnFirstUse implements BlobStore {
  private readonly store: () => Promise<BlobStore>;

  constructor(load: () => Promise<BlobStore>) {
    this.store = onFirstUse(load);
  }

  async presignUpload(key: string, contentType: string, sizeBytes: number): Promise<UploadTarget> {
    return (await this.store()).presignUpload(key, contentType, sizeBytes);
  }

  async presignDownload(key: string, fileName: string): Promise<{ url: string; expires_at: number }> {
    return (await this.store()).presignDownload(key, fileName);
  }

  async presignPlayback(
    key: string,
    contentType: string,
    expiresInSeconds: number,
  ): Promise<{ url: string; expires_at: number }> {
    return (await this.store()).presignPlayback(key, contentType, expiresInSeconds);
  }

  async putJson(key: string, value: unknown): Promise<void> {
    return (await this.store()).putJson(key, value);
  }

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    return (await this.store()).putFile(key, path, contentType);
  }

  async getJson<T>(key: string): Promise<T | null> {
    return (await this.store()).getJson<T>(key);
  }

  async downloadToFile(key: string, path: string): Promise<boolean> {
    return (await this.store()).downloadToFile(key, path);
  }

  async objectSize(key: string): Promise<number | null> {
    return (await this.store()).objectSize(key);
  }

  async delete(key: string): Promise<void> {
    return (await this.store()).delete(key);
  }

  async deletePrefix(prefix: string): Promise<void> {
    return (await this.store()).deletePrefix(prefix);
  }

  async listKeys(prefix: string): Promise<string[]> {
    return (await this.store()).listKeys(prefix);
  }
}

export class WorkQueueLoadedOnFirstUse implements WorkQueue {
  private readonly queue: () => Promise<WorkQueue>;

  constructor(load: () => Promise<WorkQueue>) {
    this.queue = onFirstUse(load);
  }

  async requestTranscription(request: TranscriptionRequest): Promise<void> {
    return (await this.queue()).requestTranscription(request);
  }

  async requestGeneration(request: GenerationRequest): Promise<void> {
    return (await this.queue()).requestGeneration(request);
  }
}

// s3rver ships no types; this covers only what the local emulators use.
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface S3rverBucketConfig {
    name: string;
    /** Raw XML documents (CORSConfiguration, WebsiteConfiguration). */
    configs?: Array<string | Buffer>;
  }

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: S3rverBucketConfig[];
  }

  /** The notification s3rver emits as 'event' (shape observed with s3rver 3.7.1). */
  interface S3rverEvent {
    Records: Array<{
      eventVersion: string;
      eventSource: string;
      awsRegion: string;
      eventTime: string;
      /** ObjectCreated:Put | ObjectCreated:Post (form POST and multipart completion) | ObjectCreated:Copy | ObjectRemoved:Delete */
      eventName: string;
      userIdentity: { principalId: string };
      requestParameters: { sourceIPAddress: string };
      responseElements: { 'x-amz-request-id': string; 'x-amz-id-2': string };
      s3: {
        s3SchemaVersion: string;
        configurationId: string;
        bucket: { name: string; ownerIdentity: { principalId: string }; arn: string };
        /** key is the decoded key; size is absent on Delete, eTag on Copy and Delete. */
        object: { key: string; sequencer: string; size?: number; eTag?: string };
      };
    }>;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    silent: boolean;
    /** The storage backend; the local emulators replace it with one that stages writes. */
    store: InstanceType<typeof import('s3rver/lib/stores/filesystem.js')>;
    context: { store: InstanceType<typeof import('s3rver/lib/stores/filesystem.js')> };
    /** Creates the configured buckets and applies their configs; safe to repeat. */
    configureBuckets(): Promise<void>;
    /** A request listener for http.createServer. */
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    on(event: 'event', listener: (event: S3rverEvent) => void): this;
    off(event: 'event', listener: (event: S3rverEvent) => void): this;
  }

  namespace S3rver {
    export type { S3rverEvent, S3rverOptions };
  }

  export = S3rver;
}

// s3rver only accepts access keys registered on its in-memory account registry.
declare module 's3rver/lib/models/account.js' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  }
  const AWSAccountModule: { DUMMY_ACCOUNT: AWSAccount };
  export = AWSAccountModule;
}

// The filesystem store s3rver keeps objects with (subclassed by src/local/storage/durable-store.ts).
declare module 's3rver/lib/stores/filesystem.js' {
  import type { Readable } from 'node:stream';

  interface S3rverObject {
    bucket: string;
    key: string;
    content: Readable | Buffer;
    metadata: Record<string, string>;
  }

  class FilesystemStore {
    constructor(rootDirectory: string);
    rootDirectory: string;
    /** `<root>/<bucket>/<key dirs>/<last key part>._S3rver_<resource>` */
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    existsObject(bucket: string, key: string): Promise<boolean>;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
    putPart(
      bucket: string,
      uploadId: string,
      partNumber: number,
      content: Readable,
    ): Promise<{ size: number; md5: string }>;
    deleteSubresource(bucket: string, key: string | undefined, resourceType: string): Promise<void>;
    getBucket(bucket: string): Promise<unknown | null>;
    listObjects(
      bucket: string,
      options: { prefix?: string; delimiter?: string; startAfter?: string; maxKeys?: number },
    ): Promise<{
      objects: Array<{ key: string; size: number; lastModifiedDate: Date; metadata: Record<string, string> }>;
      commonPrefixes: string[];
      isTruncated: boolean;
    }>;
  }

  namespace FilesystemStore {
    export type { S3rverObject };
  }

  export = FilesystemStore;
}

declare module 's3rver/lib/models/object.js' {
  const S3Object: { ALLOWED_METADATA: string[] };
  export = S3Object;
}

// s3rver's error: rendered as S3's XML error document by s3rver's error handler.
declare module 's3rver/lib/models/error.js' {
  class S3Error extends Error {
    constructor(code: string, message: string, detail?: Record<string, string | number>);
    code: string;
    status: number;
    expose: boolean;
    toXML(): string;
  }
  export = S3Error;
}

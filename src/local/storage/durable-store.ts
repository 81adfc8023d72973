import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3Error from 's3rver/lib/models/error.js';
import S3Object from 's3rver/lib/models/object.js';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';
import { s3Error } from './s3-errors.ts';

/** Opens a staging file for writing; the fault tests pass one that fails like a full disk. */
export type OpenStagingFile = (path: string) => Writable;

const openExclusive: OpenStagingFile = (path) => createWriteStream(path, { flags: 'wx', mode: 0o600 });

/**
 * s3rver's filesystem store, except that writes are staged: s3rver writes an upload straight over
 * the object's file and does not listen for write errors, so a full disk killed the whole process
 * and an interrupted upload left a truncated object in place of the old one. Here the body goes to
 * a staging file first; only a complete, checked body is renamed into place (the object then
 * appears whole or not at all), and a failed write answers S3's error instead of crashing.
 */
export class DurableFilesystemStore extends FilesystemStore {
  constructor(
    rootDirectory: string,
    private readonly stagingDirectory: string,
    private readonly openStagingFile: OpenStagingFile = openExclusive,
  ) {
    super(rootDirectory);
  }

  /** Creates the staging directory, removing what an interrupted run left in it. */
  async prepare(): Promise<void> {
    await rm(this.stagingDirectory, { recursive: true, force: true });
    await mkdir(this.stagingDirectory, { recursive: true, mode: 0o700 });
  }

  override async putObject(object: FilesystemStore.S3rverObject): Promise<{ size: number; md5: string }> {
    const { bucket, key } = object;
    const staged = await this.stage(object.content);
    const metadata = Object.fromEntries(
      Object.entries(object.metadata).filter(
        ([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-'),
      ),
    );
    await this.commit(staged.path, this.getResourcePath(bucket, key, 'object'), [
      [staged.md5, this.getResourcePath(bucket, key, 'object.md5')],
      [JSON.stringify(metadata, null, 2), this.getResourcePath(bucket, key, 'metadata.json')],
    ]);
    return { size: staged.size, md5: staged.md5 };
  }

  override async putPart(
    bucket: string,
    uploadId: string,
    partNumber: number,
    content: Readable,
  ): Promise<{ size: number; md5: string }> {
    const partPath = join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    const staged = await this.stage(content);
    await this.commit(staged.path, partPath, [[staged.md5, `${partPath}.md5`]]);
    return { size: staged.size, md5: staged.md5 };
  }

  /** Writes the content to a new staging file; on any failure the file is gone and S3's error thrown. */
  private async stage(content: Readable | Buffer): Promise<{ path: string; size: number; md5: string }> {
    const path = join(this.stagingDirectory, randomUUID());
    const md5 = createHash('md5');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
      await pipeline(source, measure, this.openStagingFile(path));
      return { path, size, md5: md5.digest('hex') };
    } catch (error) {
      await rm(path, { force: true });
      throw storageError(error);
    }
  }

  /**
   * Stages the small companion files (checksum, metadata), then renames them and last the main file
   * into place: the main file is what makes an object exist (s3rver lists and reads by it). On any
   * failure every staged file still there is removed.
   */
  private async commit(
    stagedMain: string,
    target: string,
    companions: Array<[text: string, target: string]>,
  ): Promise<void> {
    const moves: Array<[staged: string, target: string]> = [];
    try {
      for (const [text, companionTarget] of companions) {
        moves.push([(await this.stage(Buffer.from(text, 'utf8'))).path, companionTarget]);
      }
      moves.push([stagedMain, target]);
      for (const [staged, destination] of moves) {
        await mkdir(dirname(destination), { recursive: true });
        await rename(staged, destination);
      }
    } catch (error) {
      await Promise.all(
        [stagedMain, ...moves.map(([staged]) => staged)].map((path) => rm(path, { force: true })),
      );
      throw storageError(error);
    }
  }
}

/** A full disk is 507 (the SDK names the error InsufficientStorage); a read-only one 503. */
export function storageError(error: unknown): unknown {
  if (error instanceof S3Error) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return s3Error(
      507,
      'InsufficientStorage',
      'There is not enough free space in the local data directory to store this object.',
    );
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return s3Error(
      503,
      'ServiceUnavailable',
      `The local object store cannot write to its data directory (${code}).`,
    );
  }
  return error;
}

/**
 * dynalite throws the database's write errors from inside a callback (`if (err) throw err`), so a
 * full disk or a read-only data directory ends the whole process (LEVEL_IO_ERROR). Its request
 * handler answers any error that carries `statusCode` and `body` as a DynamoDB error response
 * instead; this module gives LevelDB's write errors that shape, once, before dynalite opens its
 * database:
 *
 * - no space left (ENOSPC): 507 `InsufficientStorage`, which the API maps to a 507 with a detail;
 * - any other I/O error (permissions, read-only file system): 503 `ServiceUnavailable`.
 *
 * LevelDB buffers its log, so close to a full disk a write can seem to succeed and a later one fail,
 * and dynalite writes an item's index entries and the item separately: a write cut short there would
 * leave an index entry without its item. So writes are refused before anything is written while the
 * free space of a watched data directory is under a reserve (NOTES_MIN_FREE_DISK_MB, default 32, or
 * 5 % of a smaller file system);
 * the error mapping above is the fallback. Both answer the same 507.
 */
import { createRequire } from 'node:module';
import { diskSpace } from '../adapters/disk-space.ts';

export const INSUFFICIENT_STORAGE = 'InsufficientStorage';
const DYNAMODB_ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';

interface DatabaseWriteError extends Error {
  statusCode: number;
  body: { __type: string; message: string };
}

let installed = false;
/** Directories whose file systems hold a database this process serves. */
const watched = new Set<string>();

/** Guards the database's writes (once per process) and watches the free space under `dataDir`. */
export function answerDatabaseWriteFaults(dataDir: string): () => void {
  watched.add(dataDir);
  install();
  return () => watched.delete(dataDir);
}

function install(): void {
  if (installed) return;
  installed = true;
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { Level } = requireFromDynalite('level') as { Level: { prototype: object } };
  for (const method of ['put', 'del', 'batch'] as const) {
    const owner = ownerOf(Level.prototype, method);
    const original = owner[method] as (...args: unknown[]) => unknown;
    owner[method] = function guardedWrite(this: unknown, ...args: unknown[]) {
      // The chained form of batch() returns a batch object, not a promise: left as it is.
      if (args.length === 0) return original.apply(this, args);
      // Deletions go through the reserve: they are how a user frees space.
      const check = onlyDeletes(method, args[0]) ? Promise.resolve() : ensureFreeSpace();
      return check.then(() => original.apply(this, args)).catch(rethrowAsDynamoDbError);
    };
  }
}

function ownerOf(prototype: object, method: string): Record<string, unknown> {
  for (let current: object | null = prototype; current; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, method)) return current as Record<string, unknown>;
  }
  throw new Error(`The database has no ${method} method to guard`);
}

function onlyDeletes(method: 'put' | 'del' | 'batch', operations: unknown): boolean {
  if (method === 'del') return true;
  return (
    method === 'batch' &&
    Array.isArray(operations) &&
    operations.every((operation) => (operation as { type?: string }).type === 'del')
  );
}

async function ensureFreeSpace(): Promise<void> {
  for (const dir of watched) {
    const shortfall = await spaceBelowReserve(dir);
    if (shortfall) {
      throw Object.assign(new Error(`No space left: under the ${shortfall.reserve} byte reserve`), {
        code: 'LEVEL_IO_ERROR',
      });
    }
  }
}

/** The free space and reserve of the file system holding `dir` when writes are refused there, else null. */
export async function spaceBelowReserve(dir: string): Promise<{ free: number; reserve: number } | null> {
  const space = await diskSpace(dir);
  return space.free < space.reserve ? space : null;
}

function rethrowAsDynamoDbError(error: unknown): never {
  if (!(error instanceof Error) || (error as { code?: string }).code !== 'LEVEL_IO_ERROR') throw error;
  const full = /No space left|ENOSPC/i.test(error.message);
  const shaped = new Error(full ? 'The disk is full' : 'The database could not write') as DatabaseWriteError;
  shaped.statusCode = full ? 507 : 503;
  shaped.body = {
    __type: `${DYNAMODB_ERROR_PREFIX}${full ? INSUFFICIENT_STORAGE : 'ServiceUnavailable'}`,
    // Names the fault, never the item: the original message names only the database file.
    message: full
      ? 'No space left on the device that holds the data directory'
      : 'The data directory could not be written',
  };
  throw shaped;
}

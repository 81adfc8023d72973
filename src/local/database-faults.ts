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
 * A write that failed wrote nothing (LevelDB appends to its log first), so the request ends cleanly
 * and the same write succeeds once space is freed.
 */
import { createRequire } from 'node:module';

export const INSUFFICIENT_STORAGE = 'InsufficientStorage';
const DYNAMODB_ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';

interface DatabaseWriteError extends Error {
  statusCode: number;
  body: { __type: string; message: string };
}

let installed = false;

export function answerDatabaseWriteFaults(): void {
  if (installed) return;
  installed = true;
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { Level } = requireFromDynalite('level') as { Level: { prototype: object } };
  for (const method of ['put', 'del', 'batch'] as const) {
    const owner = ownerOf(Level.prototype, method);
    const original = owner[method] as (...args: unknown[]) => unknown;
    owner[method] = function guardedWrite(this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      // The chained form of batch() returns a batch object, not a promise: left as it is.
      return result instanceof Promise ? result.catch(rethrowAsDynamoDbError) : result;
    };
  }
}

function ownerOf(prototype: object, method: string): Record<string, unknown> {
  for (let current: object | null = prototype; current; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, method)) return current as Record<string, unknown>;
  }
  throw new Error(`The database has no ${method} method to guard`);
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

/**
 * dynalite reads the table's description from LevelDB on every request (`getTable`: a LevelDB read
 * and a JSON parse before any item is touched); a profile of getNote found 57 % of its LevelDB reads
 * were that. This keeps each description in memory after its first read and drops it whenever a
 * table's record is written (CreateTable, UpdateTable, DeleteTable all write through the same table
 * store, patched here). Every caller gets its own copy, as a fresh read gave it.
 */
import { createRequire } from 'node:module';

type Callback = (error: Error | null, value?: unknown) => void;

/** dynalite's table store (db/index.js `tableDb`): LevelDB methods under a key prefix, with callbacks. */
interface TableStore {
  get(key: string, callback?: Callback): unknown;
  put(key: string, value: unknown, callback?: Callback): unknown;
  del(key: string, callback?: Callback): unknown;
  batch(operations: unknown[], callback?: Callback): unknown;
}

let installed = false;

/** Makes every dynalite store created from now on in this process cache its table descriptions. */
export function cacheTableDescriptions(): void {
  if (installed) return;
  installed = true;
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  // dynalite calls `db.create` through this module object when it makes its store.
  const db = requireFromDynalite('./db') as { create: (options: unknown) => { tableDb: TableStore } };
  const create = db.create;
  db.create = (options) => {
    const store = create(options);
    cacheReads(store.tableDb);
    return store;
  };
}

function cacheReads(tableDb: TableStore): void {
  const cached = new Map<string, unknown>();
  // A read that started before a write finished must not cache what it read.
  let writes = 0;
  const invalidate = () => {
    writes++;
    cached.clear();
  };

  const get = tableDb.get.bind(tableDb);
  tableDb.get = (key, callback) => {
    if (typeof callback !== 'function') return get(key);
    const hit = cached.get(key);
    if (hit !== undefined) {
      setImmediate(callback, null, structuredClone(hit));
      return undefined;
    }
    const writesBefore = writes;
    return get(key, (error, value) => {
      if (!error && value && typeof value === 'object' && writes === writesBefore) {
        cached.set(key, structuredClone(value));
      }
      callback(error, value);
    });
  };

  for (const method of ['put', 'del', 'batch'] as const) {
    const write = (tableDb[method] as (...args: unknown[]) => unknown).bind(tableDb);
    tableDb[method] = (...args: unknown[]) => {
      invalidate();
      const callback = args.at(-1);
      if (typeof callback !== 'function') return write(...args);
      return write(...args.slice(0, -1), (error: Error | null, value?: unknown) => {
        invalidate();
        (callback as Callback)(error, value);
      });
    };
  }
}

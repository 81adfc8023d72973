/**
 * dynalite reads the table's description from LevelDB on every request (`getTable`: an asynchronous
 * read on libuv's thread pool, a wake-up of the event loop and a JSON parse, before the request's own
 * reads), and a getNote makes two requests. This keeps each active table's description in memory
 * once read. Only dynalite writes it (CreateTable, UpdateTable, DeleteTable, and the status change
 * each schedules), all through its `tableDb`, whose `put` and `del` are wrapped here to forget the
 * table before and after the write; a read under way while a write happened is not remembered. No
 * other process can change it: LevelDB holds its lock (src/local/database-in-use.ts).
 * Measured in docs/benchmarks.md ("Where a getNote's CPU goes").
 *
 * Only the item requests (GetItem, Query, PutItem, BatchGetItem...: dynalite asks for their table
 * with a status check, `getTable(name, callback)`) are answered from memory, and they only read the
 * description: they share one frozen copy (a copy per request, structuredClone, cost more CPU than it
 * saved). The table requests (DescribeTable, UpdateTable, DeleteTable, tags: `getTable(name, false,
 * callback)`), which are rare and change the description they get, still read it from the database.
 */
import { createRequire } from 'node:module';

type Callback = (error: Error | null | undefined, value?: unknown) => void;

interface TableDescription {
  TableStatus?: string;
}

/** What dynalite's `db.create` returns, as far as the table descriptions go. */
export interface DynaliteStore {
  tableDb: {
    get(key: string, callback: Callback): void;
    put(key: string, value: unknown, callback?: Callback): void;
    del(key: string, callback?: Callback): void;
  };
  getTable(name: string, checkStatus: boolean | Callback, callback?: Callback): void;
}

let installed = false;

/** Makes every dynalite store this thread creates from now on remember its table descriptions. */
export function rememberTableDescriptions(): void {
  if (installed) return;
  installed = true;
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  // The module object dynalite's server calls `create` on for each server it makes.
  const db = requireFromDynalite('./db') as { create: (options: unknown) => DynaliteStore };
  const create = db.create;
  db.create = (options) => withRememberedTables(create(options));
}

export function withRememberedTables(store: DynaliteStore): DynaliteStore {
  const remembered = new Map<string, TableDescription>();
  let writes = 0;
  const { tableDb } = store;
  const forget = (name: string) => {
    writes++;
    remembered.delete(name);
  };
  const put = tableDb.put;
  tableDb.put = (key, value, callback) => {
    forget(key);
    put(key, value, (error) => {
      forget(key);
      callback?.(error);
    });
  };
  const del = tableDb.del;
  tableDb.del = (key, callback) => {
    forget(key);
    del(key, (error) => {
      forget(key);
      callback?.(error);
    });
  };

  const getTable = store.getTable.bind(store);
  store.getTable = (name, checkStatus, callback) => {
    if (typeof checkStatus !== 'function') return getTable(name, checkStatus, callback);
    const done = checkStatus;
    const known = remembered.get(name);
    // Only active tables are remembered, so the status check (CREATING, DELETING) always passes.
    // Answered asynchronously, as a read from the database is.
    if (known) return queueMicrotask(() => done(null, known));
    const writesBefore = writes;
    getTable(name, (error, table) => {
      const description = table as TableDescription | undefined;
      if (!error && description?.TableStatus === 'ACTIVE' && writes === writesBefore) {
        // Frozen: a change by mistake cannot reach the next request through the shared copy.
        const shared = deepFreeze(structuredClone(description));
        remembered.set(name, shared);
        return done(null, shared);
      }
      done(error, table);
    });
  };
  return store;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

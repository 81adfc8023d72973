import { createRequire } from 'node:module';

/** What the database's storage layer does on its next writes: work, or fail as a full or unwritable disk. */
export interface InjectedDiskFault {
  full: false | 'ENOSPC' | 'EACCES';
}

/**
 * Makes LevelDB's own write methods (below dynalite and its fault guard) fail as on a full disk, or a
 * data directory without write permission, while `fault.full` says so. It patches this thread's
 * `level`: the runtime's emulators must run in this thread (`emulatorsInProcess: true`).
 */
export function injectDatabaseDiskFaults(): InjectedDiskFault {
  const fault: InjectedDiskFault = { full: false };
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { Level } = requireFromDynalite('level') as { Level: { prototype: Record<string, unknown> } };
  for (const method of ['_put', '_del', '_batch']) {
    const original = Level.prototype[method] as (...args: unknown[]) => Promise<unknown>;
    Level.prototype[method] = function (this: unknown, ...args: unknown[]) {
      if (!fault.full) return original.apply(this, args);
      const error = new Error(
        fault.full === 'ENOSPC'
          ? 'IO error: 000003.log: No space left on device'
          : 'IO error: 000003.log: Permission denied',
      );
      return Promise.reject(Object.assign(error, { code: 'LEVEL_IO_ERROR' }));
    };
  }
  return fault;
}

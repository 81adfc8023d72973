// dynalite ships no types; this covers only what the local emulators use.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
  }

  /** Returns an unstarted HTTP server whose close() also closes the LevelDB store. */
  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}

/**
 * Opens the database once before dynalite does, to name what stands in the way. LevelDB admits one process per database. dynalite opens its database lazily and, when another
 * process holds it, fails on the first request with "Database is closed", thrown from a callback
 * (in-process, that ended the caller's process). Opening it once first names the actual problem.
 */
import { createRequire } from 'node:module';
import { damagedFile, StartUpProblem } from './start-up-problem.ts';

interface LevelDatabase {
  open(): Promise<void>;
  close(): Promise<void>;
}

interface LevelClass {
  new (location: string): LevelDatabase;
  /** LevelDB's RepairDB: rebuilds the manifest from the table and log files it can read. */
  repair(location: string): Promise<void>;
}

/** The LevelDB binding dynalite itself uses (its own copy of `level`). */
export function dynaliteLevel(): LevelClass {
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  return (requireFromDynalite('level') as { Level: LevelClass }).Level;
}

export async function ensureDatabaseNotInUse(directory: string): Promise<void> {
  const database = new (dynaliteLevel())(directory);
  try {
    await database.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') {
      throw new StartUpProblem(
        `DynamoDB emulator: its database ${directory} is in use by another process (is the service already running on this data directory?)`,
        { cause: error },
      );
    }
    // Any other failure to open is in the database's own files (corruption, a manifest that CURRENT
    // names but that is gone, an unreadable file): each is named with the folder and the repair.
    if ((error as { code?: string }).code === 'LEVEL_DATABASE_NOT_OPEN') {
      const reason = cause?.message ?? (error as Error).message;
      throw damagedFile(
        directory,
        cause?.code === 'LEVEL_CORRUPTION'
          ? `the notes database is damaged (${reason})`
          : `the notes database cannot be opened (${reason})`,
        "Run `npm run db:repair` to rebuild it with LevelDB's repair (it copies the folder aside first), or restore the folder from a backup",
      );
    }
    throw error;
  }
  await database.close();
}

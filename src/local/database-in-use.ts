/**
 * LevelDB admits one process per database. dynalite opens its database lazily and, when another
 * process holds it, fails on the first request with "Database is closed", thrown from a callback
 * (in-process, that ended the caller's process). Opening it once first names the actual problem.
 */
import { createRequire } from 'node:module';

interface LevelDatabase {
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function ensureDatabaseNotInUse(directory: string): Promise<void> {
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { Level } = requireFromDynalite('level') as { Level: new (location: string) => LevelDatabase };
  const database = new Level(directory);
  try {
    await database.open();
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED') {
      throw new Error(
        `DynamoDB emulator: its database ${directory} is in use by another process (is the service already running on this data directory?)`,
        { cause: error },
      );
    }
    throw error;
  }
  await database.close();
}

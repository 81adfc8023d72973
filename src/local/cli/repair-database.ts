/**
 * `npm run db:repair`: rebuilds a damaged local database (the start-up message says when) with
 * LevelDB's own repair, which reconstructs its manifest from the table and log files it can read.
 * The service must be stopped. The folder is copied aside first, so nothing is lost by trying.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { dynaliteLevel, ensureDatabaseNotInUse } from '../database-in-use.ts';
import { localDataDir, runningRuntime } from './local-account-store.ts';

const dataDir = localDataDir();
const running = await runningRuntime(dataDir);
if (running) {
  console.error(`The service is running on ${dataDir} (pid ${running.pid}): stop it first.`);
  process.exit(1);
}
const directory = join(dataDir, 'dynamodb');
const backup = `${directory}.before-repair-${new Date().toISOString().replace(/[:.]/g, '-')}`;
await cp(directory, backup, { recursive: true, errorOnExist: true, force: false });
console.error(`Copied ${directory} to ${backup}; repairing…`);
await dynaliteLevel().repair(directory);
// The same check start-up makes: the repaired database opens.
await ensureDatabaseNotInUse(directory);
process.stdout.write(`${JSON.stringify({ repaired: directory, copy_before_repair: backup })}\n`);

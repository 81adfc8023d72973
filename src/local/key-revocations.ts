import { randomUUID } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `npm run key:revoke` runs in its own process, while the running runtime remembers the keys it has
 * checked for a while (src/domain/api-key-cache.ts). After revoking, the command writes a request
 * (a fresh token) into the data directory; the runtime, watching the directory, forgets every
 * remembered key and writes the same token back as its answer; the command returns once it reads
 * it. So a key revoked by the command is refused from the very next request, as one revoked through
 * the API is. (A file rather than a signal: a stale runtime.json's pid may belong to another program.)
 */
const REQUEST_FILE = 'forget-api-keys.request';
const ANSWER_FILE = 'forget-api-keys.answer';
const ANSWER_WAIT_MS = 5000;

/**
 * Installs the runtime's side; returns what removes it (on stop). Where the directory cannot be
 * watched (no inotify watches left), the runtime still starts: `key:revoke` then says the key is
 * refused within the cache time.
 */
export function forgetKeysOnRequest(
  dataDir: string,
  forget: () => void,
  log: (line: string) => void,
): () => void {
  let watcher: FSWatcher;
  try {
    watcher = watch(dataDir, onChange);
  } catch (error) {
    log(
      `Cannot watch ${dataDir} (${(error as Error).message}): key:revoke takes effect within the key cache time`,
    );
    return () => undefined;
  }
  watcher.on('error', () => undefined);
  watcher.unref();
  return () => watcher.close();

  function onChange(_event: string, file: string | null): void {
    if (file !== REQUEST_FILE) return;
    void readFile(join(dataDir, REQUEST_FILE), 'utf8')
      .then((token) => {
        if (token === '') return;
        forget();
        return writeFile(join(dataDir, ANSWER_FILE), token, { mode: 0o600 });
      })
      .catch(() => undefined);
  }
}

/**
 * Asks the runtime of this data directory to forget the keys it remembers; true once it has
 * answered, false when it did not within a few seconds (then it refuses the key at the latest when
 * its memory of the key expires).
 */
export async function askRuntimeToForgetKeys(dataDir: string): Promise<boolean> {
  const token = randomUUID();
  await writeFile(join(dataDir, REQUEST_FILE), token, { mode: 0o600 });
  const deadline = Date.now() + ANSWER_WAIT_MS;
  while (Date.now() < deadline) {
    if ((await readFile(join(dataDir, ANSWER_FILE), 'utf8').catch(() => '')) === token) return true;
    await sleep(10);
  }
  return false;
}

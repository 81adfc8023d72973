import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { LocalCredentials } from '../adapters/aws-client-config.ts';

/**
 * The local runtime's own AWS credentials: every request to its object store, database and queue
 * ports must be signed (SigV4) with them. Made on first start, kept owner-only in the data directory,
 * never a constant in the code: another local user or a web page cannot guess them.
 */
export const LOCAL_CREDENTIALS_FILE = 'local-credentials.json';

const fileSchema = z.object({
  access_key_id: z.string().regex(/^[A-Z0-9]{16,128}$/),
  secret_access_key: z.string().min(32),
});

/**
 * Reads the credentials, creating them when the data directory has none yet. A damaged file (empty
 * after a full disk, edited by hand) is moved aside and replaced: the credentials guard only this
 * machine's emulator ports, so new ones cost nothing but upload URLs handed out before.
 */
export async function ensureLocalCredentials(
  dataDir: string,
  log: (line: string) => void = () => {},
): Promise<LocalCredentials> {
  const path = join(dataDir, LOCAL_CREDENTIALS_FILE);
  const existing = await readLocalCredentials(dataDir).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    if (!(error instanceof DamagedCredentialsFile)) throw error;
    const aside = `${path}.damaged-${Date.now()}`;
    await rename(path, aside);
    log(`${path} was damaged (${error.problem}): moved to ${aside}, new local credentials made`);
    return null;
  });
  if (existing) return existing;
  const created = generate();
  const content = `${JSON.stringify(
    { access_key_id: created.accessKeyId, secret_access_key: created.secretAccessKey },
    null,
    2,
  )}\n`;
  try {
    // 'wx': two processes starting on the same fresh directory keep one pair, the first one written.
    await writeFile(path, content, { mode: 0o600, flag: 'wx' });
    return created;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readLocalCredentials(dataDir);
    throw error;
  }
}

class DamagedCredentialsFile extends Error {
  constructor(
    path: string,
    readonly problem: string,
  ) {
    super(
      `${path} is not a valid local credentials file (${problem}); delete it, and the next start makes new ones`,
    );
  }
}

/** The credentials kept in a data directory (for tools and tests that talk to a running runtime). */
export async function readLocalCredentials(dataDir: string): Promise<LocalCredentials> {
  const path = join(dataDir, LOCAL_CREDENTIALS_FILE);
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DamagedCredentialsFile(path, text.trim() === '' ? 'it is empty' : 'it is not JSON');
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) throw new DamagedCredentialsFile(path, 'its keys are missing or malformed');
  return { accessKeyId: parsed.data.access_key_id, secretAccessKey: parsed.data.secret_access_key };
}

/** Shaped like AWS keys: a 20-character uppercase key ID and a 40-character secret. */
function generate(): LocalCredentials {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const id = [...randomBytes(18)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return { accessKeyId: `LK${id}`, secretAccessKey: randomBytes(30).toString('base64url') };
}

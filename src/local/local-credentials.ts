import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
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

/** Reads the credentials, creating them when the data directory has none yet. */
export async function ensureLocalCredentials(dataDir: string): Promise<LocalCredentials> {
  const existing = await readLocalCredentials(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
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
    await writeFile(join(dataDir, LOCAL_CREDENTIALS_FILE), content, { mode: 0o600, flag: 'wx' });
    return created;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readLocalCredentials(dataDir);
    throw error;
  }
}

/** The credentials kept in a data directory (for tools and tests that talk to a running runtime). */
export async function readLocalCredentials(dataDir: string): Promise<LocalCredentials> {
  const path = join(dataDir, LOCAL_CREDENTIALS_FILE);
  const parsed = fileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success)
    throw new Error(`${path} is not a valid local credentials file; delete it to make new ones`);
  return { accessKeyId: parsed.data.access_key_id, secretAccessKey: parsed.data.secret_access_key };
}

/** Shaped like AWS keys: a 20-character uppercase key ID and a 40-character secret. */
function generate(): LocalCredentials {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const id = [...randomBytes(18)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return { accessKeyId: `LK${id}`, secretAccessKey: randomBytes(30).toString('base64url') };
}

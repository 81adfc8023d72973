import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeOwnerOnly } from './local-account.ts';
import { damagedFile } from './start-up-problem.ts';

export const SIGNING_KEY_FILE = 'oauth-signing-key.json';

const RECOVERY =
  'Restore it from a backup, or delete it and start again to make a new key: MCP clients and web app sign-ins made with the old key will have to sign in again';

/**
 * The local OAuth server's signing key: made on first start, kept (0600) with the data. A key that
 * cannot sign stops the start with a message, rather than a service whose every OAuth request
 * fails: replacing it would sign everyone out, which is the user's call.
 */
export async function ensureSigningKey(dataDir: string): Promise<string> {
  const path = join(dataDir, SIGNING_KEY_FILE);
  const existing = (
    await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      // Only a missing key is made anew: one that cannot be read now (EIO, EACCES) is not replaced.
      if (error.code === 'ENOENT') return '';
      throw damagedFile(path, `the OAuth signing key cannot be read (${error.code ?? 'error'})`, RECOVERY);
    })
  ).trim();
  if (existing) {
    checkSigningKey(path, existing);
    return existing;
  }
  // Only a first start (or one after a start cut short before the key was written) makes one:
  // later starts do not load the signing library.
  const { generateSigningKey } = await import('../oauth/signing-key.ts');
  const key = await generateSigningKey();
  await writeOwnerOnly(path, `${key}\n`);
  return key;
}

/** An EC P-256 private JWK that Node can load (checked without the JOSE library). */
function checkSigningKey(path: string, text: string): void {
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw damagedFile(path, 'the OAuth signing key is not JSON', RECOVERY);
  }
  const ok = (() => {
    try {
      const key = createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
      return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
    } catch {
      return false;
    }
  })();
  if (!ok) throw damagedFile(path, 'the OAuth signing key is not an EC P-256 private key (JWK)', RECOVERY);
}

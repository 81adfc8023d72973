import { BadRequestError } from '../../domain/errors.ts';

/**
 * Cursors of the gsi1 pages that list notes newest first (`<created_at 13d>#<note>`): listNotes and a
 * collection's notes. A cursor carries only the position (index and table sort keys); the partition
 * comes from the caller's account, so a cursor crafted from another account's data cannot cross accounts.
 */
export function encodeCursor(lastKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ s: lastKey.gsi1sk, n: lastKey.sk }), 'utf8').toString('base64url');
}

/** `keyOf` builds the item key for the note the cursor stops at, in the caller's account. */
export function decodeCursor(
  cursor: string,
  keyOf: (noteId: string) => { pk: string; sk: string; gsi1pk: string },
  operationId: string,
): Record<string, unknown> {
  try {
    const { s, n } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      s: unknown;
      n: unknown;
    };
    if (typeof s !== 'string' || typeof n !== 'string' || !/^\d{13}#[0-9a-f-]{36}$/.test(s))
      throw new Error();
    const key = keyOf(s.slice(14));
    if (n !== key.sk) throw new Error();
    return { ...key, gsi1sk: s };
  } catch {
    throw new BadRequestError(
      `cursor is not valid: pass the next_cursor of a previous ${operationId} response`,
    );
  }
}

import { createHash } from 'node:crypto';
import { BadRequestError } from './errors.ts';

/** Where a page of search results stopped: the last note examined, by its score and ID. */
export interface SearchPosition {
  score: number;
  note_id: string;
}

/** What a cursor belongs to: the account and every parameter that shapes the ranking. */
export interface SearchCursorScope {
  accountId: string;
  q: string;
  include_trashed: boolean;
  collection_id?: string | undefined;
}

const NOTE_ID = /^[0-9a-f-]{36}$/;

/**
 * Search cursors are opaque (base64url JSON) and carry a digest of the account and the query, so a
 * cursor used by another account or with another query is refused (400) rather than read as a
 * position in someone else's results. The position itself names only a score and a note ID.
 */
export function encodeSearchCursor(scope: SearchCursorScope, position: SearchPosition): string {
  return Buffer.from(
    JSON.stringify({ k: scopeDigest(scope), s: position.score, n: position.note_id }),
    'utf8',
  ).toString('base64url');
}

export function decodeSearchCursor(cursor: string, scope: SearchCursorScope): SearchPosition {
  let parsed: { k?: unknown; s?: unknown; n?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { k, s, n } = parsed ?? {};
  if (typeof s !== 'number' || !Number.isFinite(s) || typeof n !== 'string' || !NOTE_ID.test(n)) {
    throw invalid();
  }
  if (k !== scopeDigest(scope)) {
    throw new BadRequestError(
      'cursor belongs to another search: pass the next_cursor of a previous searchNotes response, with the same q, include_trashed and collection_id, from the same account',
    );
  }
  return { score: s, note_id: n };
}

/** Results in ranked order (score descending, then note ID) that come after the position. */
export function isAfter(hit: SearchPosition, position: SearchPosition): boolean {
  return hit.score < position.score || (hit.score === position.score && hit.note_id > position.note_id);
}

function scopeDigest(scope: SearchCursorScope): string {
  const parts = [scope.accountId, scope.q, String(scope.include_trashed), scope.collection_id ?? ''];
  return createHash('sha256').update(parts.join('\n'), 'utf8').digest('base64url').slice(0, 22);
}

function invalid(): BadRequestError {
  return new BadRequestError('cursor is not valid: pass the next_cursor of a previous searchNotes response');
}

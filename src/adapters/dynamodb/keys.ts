import type { JobKind } from '../../domain/job.ts';
import type { NoteState } from '../../domain/note.ts';

/**
 * The one place that builds DynamoDB keys. A user's items live in the partition `ACCOUNT#<id>`, so a
 * query that starts from an account cannot reach another account's data.
 *
 * | item     | pk                 | sk                          | gsi1pk                        | gsi1sk                   |
 * |----------|--------------------|-----------------------------|-------------------------------|--------------------------|
 * | account  | ACCOUNT#<acc>      | ACCOUNT                     |                               |                          |
 * | api key  | APIKEY#<sha256>    | APIKEY                      | ACCOUNT#<acc>#APIKEYS         | <key_id>                 |
 * | note     | ACCOUNT#<acc>      | NOTE#<note>                 | ACCOUNT#<acc>#NOTES#<state>   | <created_at 13d>#<note>  |
 * | job      | ACCOUNT#<acc>      | NOTE#<note>#JOB#<kind>      |                               |                          |
 */
export const GSI1 = 'gsi1';

const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;
const notePrefix = (noteId: string) => `NOTE#${noteId}`;

export const keys = {
  account: (accountId: string) => ({ pk: accountPk(accountId), sk: 'ACCOUNT' }),
  apiKey: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  apiKeyIndex: (accountId: string, keyId: string) => ({
    gsi1pk: `${accountPk(accountId)}#APIKEYS`,
    gsi1sk: keyId,
  }),

  note: (accountId: string, noteId: string) => ({ pk: accountPk(accountId), sk: notePrefix(noteId) }),
  noteIndex: (accountId: string, state: NoteState, createdAt: number, noteId: string) => ({
    gsi1pk: notesByState(accountId, state),
    gsi1sk: `${String(createdAt).padStart(13, '0')}#${noteId}`,
  }),
  job: (accountId: string, noteId: string, kind: JobKind) => ({
    pk: accountPk(accountId),
    sk: `${notePrefix(noteId)}#JOB#${kind}`,
  }),
  /** Every item of one note shares this sort-key prefix (UUIDs are fixed-length, so no note's prefix matches another's). */
  noteItemsPrefix: (accountId: string, noteId: string) => ({
    pk: accountPk(accountId),
    skPrefix: notePrefix(noteId),
  }),
};

export function notesByState(accountId: string, state: NoteState): string {
  return `${accountPk(accountId)}#NOTES#${state}`;
}

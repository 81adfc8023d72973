import { createHash } from 'node:crypto';
import type { JobKind } from '../../domain/job.ts';
import type { NoteState } from '../../domain/note.ts';
import type { IndexPartition } from '../../ports/search-index.ts';

/**
 * The one place that builds DynamoDB keys. A user's items live in the partition `ACCOUNT#<id>`, so a
 * query that starts from an account cannot reach another account's data.
 *
 * | item          | pk                          | sk                      | gsi1pk                      | gsi1sk                  |
 * |---------------|-----------------------------|-------------------------|-----------------------------|-------------------------|
 * | account       | ACCOUNT#<acc>               | ACCOUNT                 |                             |                         |
 * | api key       | APIKEY#<sha256>             | APIKEY                  | ACCOUNT#<acc>#APIKEYS       | <key_id>                |
 * | note          | ACCOUNT#<acc>               | NOTE#<note>             | ACCOUNT#<acc>#NOTES#<state> | <created_at 13d>#<note> |
 * | job           | ACCOUNT#<acc>               | NOTE#<note>#JOB#<kind>  | JOBS#IN_FLIGHT#<0-7> (while queued or processing) | <acc>#<note>#<kind> |
 * | indexed       | ACCOUNT#<acc>               | NOTE#<note>#INDEX       |                             |                         |
 * | posting       | ACCOUNT#<acc>               | TERM#<term>#NOTE#<note> | ACCOUNT#<acc>[#TRASHED]#TERM#<term> | <impact 8d>#<note> |
 * | term df       | ACCOUNT#<acc>               | TERMSTAT#[TRASHED#]<term> |                           |                         |
 * | collection    | ACCOUNT#<acc>               | COLLECTION#<coll>       | ACCOUNT#<acc>#COLLECTIONS   | <coll>                  |
 * | coll. name    | ACCOUNT#<acc>               | COLLECTIONNAME#<name>   |                             |                         |
 * | filing        | ACCOUNT#<acc>               | NOTE#<note>#COLLECTION#<coll> | ACCOUNT#<acc>#COLLECTION#<coll> | <created_at 13d>#<note> |
 * | index         | ACCOUNT#<acc>               | INDEXSTATS[#TRASHED]    |                             |                         |
 * | voice choice  | ACCOUNT#<acc>               | VOICEPROFILES           |                             |                         |
 * | voice profile | ACCOUNT#<acc>               | VOICEPROFILE#<profile>  |                             |                         |
 * | oauth client  | OAUTHCLIENT#<client_id>     | OAUTHCLIENT             |                             |                         |
 * | oauth request | OAUTHREQUEST#<request_id>   | OAUTHREQUEST            |                             |                         |
 * | oauth code    | OAUTHCODE#<sha256>          | OAUTHCODE               |                             |                         |
 * | oauth refresh | OAUTHREFRESH#<sha256>       | OAUTHREFRESH            |                             |                         |
 * | oauth grant   | ACCOUNT#<acc>               | OAUTHGRANT#<grant_id>   |                             |                         |
 * | oauth sign-in | ACCOUNT#<acc>               | OAUTHSIGNIN#<sign_in_id> |                            |                         |
 * | oauth regs    | OAUTHREGISTRATIONS#<source>#<hour> | OAUTHREGISTRATIONS |                           |                         |
 * | identity      | IDENTITY#<sha256(iss, sub)> | IDENTITY                |                             |                         |
 * | retaining     | RETENTION#COLLECTIONS       | <acc>#<coll>            |                             |                         |
 * | to delete     | RETENTION#DELETIONS         | <deletes_at 13d>#<acc>#<note> |                       |                         |
 *
 * Search index (src/adapters/dynamodb/search-index.ts): a posting says how often a term occurs in a
 * note; gsi1 orders a term's postings by their BM25 weight, so a question reads only the best few
 * hundred notes per term. "indexed" records which terms a note added, to take them out again, and its
 * partition: a trashed note's postings are ordered under `#TRASHED#` and counted in their own document
 * frequencies and index counts, so the active partition (Ask, default search) never sees them. A note
 * has one posting per term whatever its partition (no second copy); trashing moves it.
 *
 * Collections (src/adapters/dynamodb/collection-store.ts): a filing puts one note in one collection. Its
 * sort key starts with the note's prefix, so deleting a note deletes its filings; gsi1 lists a
 * collection's notes newest first, like listNotes. A name item reserves a collection name (lower-cased)
 * for the collection that holds it, so two collections of one account never share a name. A
 * collection's instructions are an attribute of the collection item (no key of their own): the notes'
 * Insights and artifacts record the instructions they were made with and compare them when read.
 *
 * Jobs in flight (queued or processing) carry gsi1 keys, removed when they end (every change of status
 * rewrites the whole item): the reconciler on AWS (src/domain/job-reconciliation.ts) reads them from
 * these sparse partitions instead of scanning the table. They are the only keys across accounts, and
 * no user's request reads them; they hold only the jobs running now. Every job write also writes the
 * index, so jobs are spread over 8 partitions by a hash of the note (one partition would cap the
 * index's write rate, and a throttled index throttles the table's writes).
 *
 * OAuth (src/oauth, src/adapters/dynamodb/oauth-store.ts): codes and refresh tokens are found by the
 * SHA-256 of the secret, as API keys are; requests, codes and refresh tokens expire through the
 * `expires_at_s` TTL attribute. A grant (one consent, the family of every token issued from it) lives
 * in its account's partition, so revoking it revokes every refresh and access token of the family.
 * A sign-in session (a browser signed in at the authorization server, its cookie) lives there too:
 * one query by the `OAUTH` prefix reads an account's sessions for its list.
 * Voice profiles (src/adapters/dynamodb/voice-profile-store.ts) live in their account's partition:
 * one query by the `VOICEPROFILE#` prefix reads them all (a few hundred at most), and whatever
 * deletes the account's partition deletes them.
 * Retention (src/domain/retention.ts) reads two small partitions across accounts, like the jobs in
 * flight, and no user's request reads them: "retaining" lists the collections that have a retention
 * period (written before a period is set, removed after it is cleared or the collection deleted, so
 * it may name one that no longer retains, never miss one that does); "to delete" lists the notes
 * the retention trashed, by the time they are deleted for good (a note restored meanwhile is left
 * alone and its entry dropped). The notes of a collection older than its period are read from the
 * filings' gsi1, whose sort key starts with the note's creation time.
 * An identity maps an upstream sign-in (OIDC issuer + subject, e.g. Cognito) to its account.
 */
export const GSI1 = 'gsi1';

const ACCOUNT_PK_PREFIX = 'ACCOUNT#';
/** The gsi1 partitions of the jobs in flight (keys.inFlightJobIndex). */
const IN_FLIGHT_JOB_SHARDS = 8;
export const IN_FLIGHT_JOB_PARTITIONS = Array.from(
  { length: IN_FLIGHT_JOB_SHARDS },
  (_, shard) => `JOBS#IN_FLIGHT#${shard}`,
);
const JOB_SK_MARKER = '#JOB#';
const OAUTH_GRANT_SK_PREFIX = 'OAUTHGRANT#';
const OAUTH_SIGN_IN_SK_PREFIX = 'OAUTHSIGNIN#';
/** What the sort keys of an account's grants and sign-in sessions (and nothing else of it) start with. */
const OAUTH_SESSION_SK_PREFIX = 'OAUTH';
const COLLECTION_SK_PREFIX = 'COLLECTION#';
const VOICE_PROFILE_SK_PREFIX = 'VOICEPROFILE#';
const RETAINING_COLLECTIONS_PK = 'RETENTION#COLLECTIONS';
const SCHEDULED_DELETIONS_PK = 'RETENTION#DELETIONS';
/** Times in sort keys: 13 digits of epoch milliseconds sort as the times do. */
const sortableTime = (at: number) => String(Math.max(0, Math.floor(at))).padStart(13, '0');
const accountPk = (accountId: string) => `${ACCOUNT_PK_PREFIX}${accountId}`;
const notePrefix = (noteId: string) => `NOTE#${noteId}`;
/** Active keys are unmarked (as they were before trashed notes were indexed); terms never contain '#'. */
const PARTITION_MARK: Record<IndexPartition, string> = { active: '', trashed: 'TRASHED#' };

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
    gsi1sk: `${sortableTime(createdAt)}#${noteId}`,
  }),
  job: (accountId: string, noteId: string, kind: JobKind) => ({
    pk: accountPk(accountId),
    sk: `${notePrefix(noteId)}${JOB_SK_MARKER}${kind}`,
  }),
  inFlightJobIndex: (accountId: string, noteId: string, kind: JobKind) => ({
    gsi1pk: `JOBS#IN_FLIGHT#${(createHash('sha256').update(noteId).digest()[0] ?? 0) % IN_FLIGHT_JOB_SHARDS}`,
    gsi1sk: `${accountId}#${noteId}#${kind}`,
  }),
  noteIndexEntry: (accountId: string, noteId: string) => ({
    pk: accountPk(accountId),
    sk: `${notePrefix(noteId)}#INDEX`,
  }),
  posting: (accountId: string, term: string, noteId: string) => ({
    pk: accountPk(accountId),
    sk: `TERM#${term}#${notePrefix(noteId)}`,
  }),
  /** `weight` in [0, 1e8): higher sorts later, so queries read the index backwards. */
  postingIndex: (
    accountId: string,
    term: string,
    weight: number,
    noteId: string,
    partition: IndexPartition = 'active',
  ) => ({
    gsi1pk: postingsByWeight(accountId, term, partition),
    gsi1sk: `${String(Math.min(Math.max(Math.round(weight), 0), 99_999_999)).padStart(8, '0')}#${noteId}`,
  }),
  collection: (accountId: string, collectionId: string) => ({
    pk: accountPk(accountId),
    sk: `${COLLECTION_SK_PREFIX}${collectionId}`,
  }),
  collectionIndex: (accountId: string, collectionId: string) => ({
    gsi1pk: collectionsOf(accountId),
    gsi1sk: collectionId,
  }),
  collectionName: (accountId: string, nameKey: string) => ({
    pk: accountPk(accountId),
    sk: `COLLECTIONNAME#${nameKey}`,
  }),
  filing: (accountId: string, noteId: string, collectionId: string) => ({
    pk: accountPk(accountId),
    sk: `${notePrefix(noteId)}#${COLLECTION_SK_PREFIX}${collectionId}`,
  }),
  filingIndex: (accountId: string, collectionId: string, noteCreatedAt: number, noteId: string) => ({
    gsi1pk: notesInCollection(accountId, collectionId),
    gsi1sk: `${sortableTime(noteCreatedAt)}#${noteId}`,
  }),
  /** The filings' gsi1 sort keys of notes created before `at` are below this. */
  filingsCreatedBefore: (at: number) => sortableTime(at),
  retainingCollection: (accountId: string, collectionId: string) => ({
    pk: RETAINING_COLLECTIONS_PK,
    sk: `${accountId}#${collectionId}`,
  }),
  retainingCollections: () => ({ pk: RETAINING_COLLECTIONS_PK }),
  scheduledDeletion: (deletesAt: number, accountId: string, noteId: string) => ({
    pk: SCHEDULED_DELETIONS_PK,
    sk: `${sortableTime(deletesAt)}#${accountId}#${noteId}`,
  }),
  /** The deletions due at `at` or earlier have sort keys below this. */
  scheduledDeletionsDue: (at: number) => ({ pk: SCHEDULED_DELETIONS_PK, skBelow: sortableTime(at + 1) }),
  oauthClient: (clientId: string) => ({ pk: `OAUTHCLIENT#${clientId}`, sk: 'OAUTHCLIENT' }),
  oauthRequest: (requestId: string) => ({ pk: `OAUTHREQUEST#${requestId}`, sk: 'OAUTHREQUEST' }),
  oauthCode: (codeHash: string) => ({ pk: `OAUTHCODE#${codeHash}`, sk: 'OAUTHCODE' }),
  oauthRefreshToken: (tokenHash: string) => ({ pk: `OAUTHREFRESH#${tokenHash}`, sk: 'OAUTHREFRESH' }),
  oauthRegistrations: (source: string, windowStartS: number) => ({
    pk: `OAUTHREGISTRATIONS#${source}#${windowStartS}`,
    sk: 'OAUTHREGISTRATIONS',
  }),
  oauthGrant: (accountId: string, grantId: string) => ({
    pk: accountPk(accountId),
    sk: `${OAUTH_GRANT_SK_PREFIX}${grantId}`,
  }),
  /** Every grant of one account. */
  oauthGrantsPrefix: (accountId: string) => ({ pk: accountPk(accountId), skPrefix: OAUTH_GRANT_SK_PREFIX }),
  /** A browser's sign-in session at the authorization server, under its account beside the grants. */
  oauthSignIn: (accountId: string, signInId: string) => ({
    pk: accountPk(accountId),
    sk: `${OAUTH_SIGN_IN_SK_PREFIX}${signInId}`,
  }),
  /** Every grant and sign-in session of one account, read together for its list of sessions. */
  oauthSessionsPrefix: (accountId: string) => ({
    pk: accountPk(accountId),
    skPrefix: OAUTH_SESSION_SK_PREFIX,
  }),
  voiceProfileSettings: (accountId: string) => ({ pk: accountPk(accountId), sk: 'VOICEPROFILES' }),
  voiceProfile: (accountId: string, profileId: string) => ({
    pk: accountPk(accountId),
    sk: `${VOICE_PROFILE_SK_PREFIX}${profileId}`,
  }),
  /** Every voice profile of one account (the settings item's sort key does not start with it). */
  voiceProfilesPrefix: (accountId: string) => ({
    pk: accountPk(accountId),
    skPrefix: VOICE_PROFILE_SK_PREFIX,
  }),
  /** Hashed, so that any issuer URL and subject make a fixed-length key. */
  identity: (issuer: string, subject: string) => ({
    pk: `IDENTITY#${createHash('sha256').update(`${issuer}\n${subject}`, 'utf8').digest('hex')}`,
    sk: 'IDENTITY',
  }),
  termStats: (accountId: string, term: string, partition: IndexPartition = 'active') => ({
    pk: accountPk(accountId),
    sk: `TERMSTAT#${PARTITION_MARK[partition]}${term}`,
  }),
  indexStats: (accountId: string, partition: IndexPartition = 'active') => ({
    pk: accountPk(accountId),
    sk: `INDEXSTATS${partition === 'active' ? '' : '#TRASHED'}`,
  }),
  /**
   * What tells one note's items apart when read together by `noteItemsPrefix`: the note itself, its
   * jobs and its filings (the rest is its index entry).
   */
  noteItemSortKeys: (noteId: string) => ({
    note: notePrefix(noteId),
    jobPrefix: `${notePrefix(noteId)}${JOB_SK_MARKER}`,
    filingPrefix: `${notePrefix(noteId)}#${COLLECTION_SK_PREFIX}`,
  }),
  /** Every item of one note shares this sort-key prefix (UUIDs are fixed-length, so no note's prefix matches another's). */
  noteItemsPrefix: (accountId: string, noteId: string) => ({
    pk: accountPk(accountId),
    skPrefix: notePrefix(noteId),
  }),
};

/** What tells a job item apart in a scan: its partition is an account's, its sort key has the job marker. */
export const jobItemPattern = { pkPrefix: ACCOUNT_PK_PREFIX, skContains: JOB_SK_MARKER };

export function notesByState(accountId: string, state: NoteState): string {
  return `${accountPk(accountId)}#NOTES#${state}`;
}

export function postingsByWeight(
  accountId: string,
  term: string,
  partition: IndexPartition = 'active',
): string {
  return `${accountPk(accountId)}#${PARTITION_MARK[partition]}TERM#${term}`;
}

export function collectionsOf(accountId: string): string {
  return `${accountPk(accountId)}#COLLECTIONS`;
}

export function notesInCollection(accountId: string, collectionId: string): string {
  return `${accountPk(accountId)}#COLLECTION#${collectionId}`;
}

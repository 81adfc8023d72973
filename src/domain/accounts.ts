import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AccountStore } from '../ports/account-store.ts';
import type { SessionStore } from '../ports/session-store.ts';
import type { Account, ApiKeyRecord, ApiKeyView, Caller } from './account.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from './errors.ts';
import { type McpScope, mcpScopes } from './scopes.ts';

export const API_KEY_PREFIX = 'svc_sk_';
/** The one answer to a well-formed key that does not authenticate (unknown or revoked). */
const INVALID_KEY = 'Invalid API key: it is unknown or has been revoked';
/** 32 random bytes, base64url: 43 characters after the prefix. */
const API_KEY_PATTERN = /^svc_sk_[A-Za-z0-9_-]{43}$/;
/** What stays readable of a key: the prefix and 4 of its 43 random characters (24 of 256 bits). */
const SHOWN_KEY_CHARACTERS = API_KEY_PREFIX.length + 4;

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

export interface IssuedKey {
  account: Account;
  key_id: string;
  /** Shown once; only its hash is stored. */
  api_key: string;
  name: string | null;
  prefix: string;
  created_at: number;
  scopes: McpScope[];
}

/** Every scope, in canonical order: what a key made without a narrower credential holds. */
export const ALL_SCOPES = Object.keys(mcpScopes) as McpScope[];

/** A key's scopes: those recorded, or every scope for a key made before keys carried them. */
export function keyScopes(record: Pick<ApiKeyRecord, 'scopes'>): McpScope[] {
  return record.scopes ? ALL_SCOPES.filter((scope) => record.scopes?.includes(scope)) : [...ALL_SCOPES];
}

export async function createAccount(store: AccountStore, name: string, now = Date.now()): Promise<IssuedKey> {
  const account: Account = { account_id: randomUUID(), name, created_at: now };
  await store.createAccount(account);
  return issueApiKey(store, account, now);
}

export async function issueApiKey(
  store: AccountStore,
  account: Account,
  now = Date.now(),
  name: string | null = null,
  scopes: readonly McpScope[] = ALL_SCOPES,
): Promise<IssuedKey> {
  const held = ALL_SCOPES.filter((scope) => scopes.includes(scope));
  const apiKey = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const keyId = `key_${randomBytes(8).toString('hex')}`;
  const prefix = apiKey.slice(0, SHOWN_KEY_CHARACTERS);
  await store.putApiKey({
    key_id: keyId,
    account_id: account.account_id,
    key_hash: hashApiKey(apiKey),
    created_at: now,
    revoked_at: null,
    name,
    prefix,
    scopes: held,
    account,
  });
  return { account, key_id: keyId, api_key: apiKey, name, prefix, created_at: now, scopes: held };
}

/** The account's keys, newest first, revoked ones included (with revoked_at). */
export async function listApiKeys(store: AccountStore, accountId: string): Promise<ApiKeyView[]> {
  const records = await store.listApiKeys(accountId);
  return records.map(apiKeyView).sort((a, b) => b.created_at - a.created_at);
}

/** What a caller's credential may do: an access token's scopes, or an API key's. */
export function callerScopes(caller: Caller): McpScope[] {
  return caller.access_token?.scopes ?? caller.api_key?.scopes ?? [];
}

/**
 * Revokes one of the account's keys; requests with it answer 401 from then on: at once in this
 * process (CachedAccountStore forgets it), within API_KEY_CACHE_SECONDS in others. Every session the
 * key signed in (OAuth grants and browser sign-ins) ends with it, at once. Revoking a revoked key
 * again changes nothing. Another account's key is not found.
 * A key may always revoke itself (a leaked key's holder, or its owner, switching it off). Any other
 * key takes a credential holding notes:write and every scope of the key (`revokerScopes`): a
 * narrowed key, or a session given less, must not switch off the owner's wider key (review of
 * issue 22, finding 10).
 */
export async function revokeAccountApiKey(
  store: AccountStore,
  sessions: SessionStore,
  caller: Caller,
  keyId: string,
  now = Date.now(),
): Promise<void> {
  const accountId = caller.account.account_id;
  const record = (await store.listApiKeys(accountId)).find((key) => key.key_id === keyId);
  if (!record) throw new NotFoundError('No such API key in this account');
  if (caller.api_key?.key_id !== keyId) {
    const beyond = lackedToEnd(caller, keyScopes(record));
    if (beyond.length > 0) {
      throw new ForbiddenError(
        `Revoking this key takes ${beyond.join(' and ')}, which the credential revoking it does not hold: only a credential holding notes:write and every permission of a key can revoke it (a key may always revoke itself).`,
      );
    }
  }
  if (!(await store.revokeApiKey(accountId, keyId, now, record.key_hash))) {
    throw new NotFoundError('No such API key in this account');
  }
  await sessions.endSessionsOfKey(accountId, keyId, now);
}

/**
 * What the caller lacks to revoke a key, or end a session, that holds `scopes`: notes:write (it
 * changes the account) and each of those scopes, so that no credential switches off one that may do
 * more than itself.
 */
export function lackedToEnd(caller: Caller, scopes: readonly McpScope[]): McpScope[] {
  const held = callerScopes(caller);
  const needed: McpScope[] = ['notes:write', ...scopes.filter((scope) => scope !== 'notes:write')];
  return needed.filter((scope) => !held.includes(scope));
}

export function apiKeyView(record: ApiKeyRecord): ApiKeyView {
  return {
    key_id: record.key_id,
    name: record.name ?? null,
    prefix: record.prefix ?? null,
    created_at: record.created_at,
    revoked_at: record.revoked_at,
    scopes: keyScopes(record),
  };
}

/** Resolves the caller from an `Authorization` header value, or throws UnauthorizedError. */
export async function authenticate(store: AccountStore, authorization: string | undefined): Promise<Caller> {
  if (!authorization) throw new UnauthorizedError('Missing API key: send Authorization: Bearer svc_sk_...');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const apiKey = match?.[1];
  if (!apiKey || !API_KEY_PATTERN.test(apiKey)) {
    throw new UnauthorizedError('Malformed API key: expected Authorization: Bearer svc_sk_...');
  }
  const hash = hashApiKey(apiKey);
  const record = await store.getApiKeyByHash(hash);
  // The lookup is by hash already; the constant-time compare guards against a store that matches loosely.
  // Unknown, revoked and orphaned keys get the same answer: nobody learns that a key once existed.
  if (
    !record ||
    !timingSafeEqual(Buffer.from(record.key_hash, 'hex'), Buffer.from(hash, 'hex')) ||
    record.revoked_at !== null
  ) {
    throw new UnauthorizedError(INVALID_KEY);
  }
  const account =
    record.account?.account_id === record.account_id
      ? record.account
      : await store.getAccount(record.account_id);
  if (!account) throw new UnauthorizedError(INVALID_KEY);
  return {
    account,
    api_key: { key_id: record.key_id, created_at: record.created_at, scopes: keyScopes(record) },
    access_token: null,
  };
}

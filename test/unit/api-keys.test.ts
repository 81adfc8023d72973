import { describe, expect, it } from 'vitest';
import type { Account, ApiKeyRecord } from '../../src/domain/account.ts';
import {
  authenticate,
  createAccount,
  hashApiKey,
  issueApiKey,
  keyScopes,
  listApiKeys,
} from '../../src/domain/accounts.ts';
import { UnauthorizedError } from '../../src/domain/errors.ts';
import type { AccountStore } from '../../src/ports/account-store.ts';

/** An in-memory AccountStore: the domain logic under test is key issuing and checking, not storage. */
function memoryStore(): AccountStore & { keys: ApiKeyRecord[] } {
  const accounts = new Map<string, Account>();
  const keys: ApiKeyRecord[] = [];
  return {
    keys,
    createAccount: async (account) => void accounts.set(account.account_id, account),
    getAccount: async (id) => accounts.get(id) ?? null,
    putApiKey: async (key) => void keys.push(key),
    getApiKeyByHash: async (hash) => keys.find((key) => key.key_hash === hash) ?? null,
    listApiKeys: async (accountId) => keys.filter((key) => key.account_id === accountId),
    revokeApiKey: async (accountId, keyId, now) => {
      const key = keys.find((k) => k.account_id === accountId && k.key_id === keyId);
      if (key) key.revoked_at = now;
      return Boolean(key);
    },
  };
}

function issuedAt(store: { keys: ApiKeyRecord[] }, keyId: string): number | undefined {
  return store.keys.find((key) => key.key_id === keyId)?.created_at;
}

describe('API keys', () => {
  it('are svc_sk_ followed by 32 random bytes, and only their SHA-256 is stored', async () => {
    const store = memoryStore();
    const issued = await createAccount(store, 'someone');
    expect(issued.api_key).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(store.keys[0]?.key_hash).toBe(hashApiKey(issued.api_key));
    expect(JSON.stringify(store.keys)).not.toContain(issued.api_key);
    const other = await createAccount(store, 'someone else');
    expect(other.api_key).not.toBe(issued.api_key);
  });

  it('authenticate the account they belong to', async () => {
    const store = memoryStore();
    const issued = await createAccount(store, 'someone');
    const caller = await authenticate(store, `Bearer ${issued.api_key}`);
    expect(caller.account.account_id).toBe(issued.account.account_id);
    expect(caller.api_key).toEqual({
      key_id: issued.key_id,
      created_at: issuedAt(store, issued.key_id),
      scopes: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
    });
  });

  it('are refused when missing, malformed, unknown or revoked', async () => {
    const store = memoryStore();
    const issued = await createAccount(store, 'someone');
    for (const header of [
      undefined,
      '',
      'Basic abc',
      `Bearer ${issued.api_key}x`,
      `Bearer svc_sk_${'B'.repeat(43)}`,
    ]) {
      await expect(authenticate(store, header)).rejects.toBeInstanceOf(UnauthorizedError);
    }
  });

  it('are refused with one message whether unknown or revoked, so the answer never tells that a key existed', async () => {
    const store = memoryStore();
    const issued = await createAccount(store, 'someone');
    const unknown = await authenticate(store, `Bearer svc_sk_${'B'.repeat(43)}`).catch(
      (error: Error) => error,
    );
    await store.revokeApiKey(issued.account.account_id, issued.key_id, Date.now());
    const revoked = await authenticate(store, `Bearer ${issued.api_key}`).catch((error: Error) => error);
    expect(revoked).toBeInstanceOf(UnauthorizedError);
    expect(unknown).toBeInstanceOf(UnauthorizedError);
    expect((revoked as Error).message).toBe((unknown as Error).message);
  });

  it('are listed for their account only, newest first, by name and prefix, never the secret or its hash', async () => {
    const store = memoryStore();
    const first = await createAccount(store, 'someone', 1000);
    const laptop = await issueApiKey(store, first.account, 2000, 'Laptop CLI');
    await createAccount(store, 'someone else', 3000);
    const listed = await listApiKeys(store, first.account.account_id);
    expect(listed).toEqual([
      {
        key_id: laptop.key_id,
        name: 'Laptop CLI',
        prefix: laptop.api_key.slice(0, 11),
        created_at: 2000,
        revoked_at: null,
        scopes: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
      },
      {
        key_id: first.key_id,
        name: null,
        prefix: first.api_key.slice(0, 11),
        created_at: 1000,
        revoked_at: null,
        scopes: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(hashApiKey(laptop.api_key));
    expect(JSON.stringify(listed)).not.toContain(laptop.api_key);
  });

  it('carry the scopes they were made with; a key recorded without scopes (made before) holds every scope', async () => {
    const store = memoryStore();
    const first = await createAccount(store, 'someone');
    const reader = await issueApiKey(store, first.account, Date.now(), 'Reader', ['notes:read']);
    expect((await authenticate(store, `Bearer ${reader.api_key}`)).api_key?.scopes).toEqual(['notes:read']);
    // A key stored before keys carried scopes: no scopes field at all.
    const oldKey = `svc_sk_${'A'.repeat(43)}`;
    await store.putApiKey({
      key_id: 'key_00000000000000aa',
      account_id: first.account.account_id,
      key_hash: hashApiKey(oldKey),
      created_at: 1,
      revoked_at: null,
    });
    expect((await authenticate(store, `Bearer ${oldKey}`)).api_key?.scopes).toEqual([
      'notes:read',
      'notes:write',
      'notes:process',
      'notes:delete',
    ]);
    expect(keyScopes({ scopes: ['notes:process', 'notes:read'] })).toEqual(['notes:read', 'notes:process']);
  });
});

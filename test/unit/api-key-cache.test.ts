import { describe, expect, it } from 'vitest';
import type { Account, ApiKeyRecord } from '../../src/domain/account.ts';
import { authenticate, createAccount } from '../../src/domain/accounts.ts';
import { API_KEY_CACHE_SECONDS, CachedAccountStore } from '../../src/domain/api-key-cache.ts';
import { UnauthorizedError } from '../../src/domain/errors.ts';
import type { AccountStore } from '../../src/ports/account-store.ts';

/** A store that hands out copies, as a database does, and counts its reads. */
function countingStore(): AccountStore & { reads: number; keys: ApiKeyRecord[] } {
  const accounts = new Map<string, Account>();
  const keys: ApiKeyRecord[] = [];
  const store = {
    reads: 0,
    keys,
    createAccount: async (account: Account) => void accounts.set(account.account_id, { ...account }),
    getAccount: async (id: string) => {
      store.reads += 1;
      const account = accounts.get(id);
      return account ? { ...account } : null;
    },
    putApiKey: async (key: ApiKeyRecord) => void keys.push({ ...key }),
    getApiKeyByHash: async (hash: string) => {
      store.reads += 1;
      const key = keys.find((k) => k.key_hash === hash);
      return key ? { ...key } : null;
    },
    listApiKeys: async (accountId: string) =>
      keys.filter((k) => k.account_id === accountId).map((k) => ({ ...k })),
    revokeApiKey: async (accountId: string, keyId: string, now: number) => {
      const key = keys.find((k) => k.account_id === accountId && k.key_id === keyId);
      if (key) key.revoked_at = now;
      return Boolean(key);
    },
  };
  return store;
}

function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

describe('the API key cache', () => {
  it('checks a key with one read the first time and none for a while after', async () => {
    const store = countingStore();
    const { now } = clock();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, now);
    const issued = await createAccount(cached, 'someone');
    const bearer = `Bearer ${issued.api_key}`;

    expect((await authenticate(cached, bearer)).account).toEqual(issued.account);
    expect(store.reads).toBe(1);
    await authenticate(cached, bearer);
    await authenticate(cached, bearer);
    expect(store.reads).toBe(1);
  });

  it('does not remember a key read before a revocation that finished while the read was under way', async () => {
    const store = countingStore();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, clock().now);
    const issued = await createAccount(cached, 'someone');
    const bearer = `Bearer ${issued.api_key}`;
    // The read returns what the table held when it started: the key before its revocation.
    const readKey = store.getApiKeyByHash;
    let release: () => void = () => undefined;
    store.getApiKeyByHash = async (hash) => {
      const before = await readKey(hash);
      await new Promise<void>((done) => {
        release = done;
      });
      return before;
    };
    const slowCheck = authenticate(cached, bearer);
    await new Promise((done) => setImmediate(done));
    await cached.revokeApiKey(issued.account.account_id, issued.key_id, 2_000_000);
    release();
    await slowCheck;
    store.getApiKeyByHash = readKey;

    await expect(authenticate(cached, bearer)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses a key revoked through it at the very next check', async () => {
    const store = countingStore();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, clock().now);
    const issued = await createAccount(cached, 'someone');
    const bearer = `Bearer ${issued.api_key}`;
    await authenticate(cached, bearer);

    await cached.revokeApiKey(issued.account.account_id, issued.key_id, Date.now());
    await expect(authenticate(cached, bearer)).rejects.toThrow(UnauthorizedError);
  });

  it('refuses a key revoked by another process once the cache time has passed, and not before', async () => {
    const store = countingStore();
    const { time, now } = clock();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, now);
    const issued = await createAccount(cached, 'someone');
    const bearer = `Bearer ${issued.api_key}`;
    await authenticate(cached, bearer);

    // Another Lambda container revokes the key: this process still remembers it as valid.
    await store.revokeApiKey(issued.account.account_id, issued.key_id, time.now);
    time.now += API_KEY_CACHE_SECONDS * 1000 - 1;
    await expect(authenticate(cached, bearer)).resolves.toMatchObject({ account: issued.account });
    time.now += 1;
    await expect(authenticate(cached, bearer)).rejects.toThrow(UnauthorizedError);
  });

  it('refuses every remembered key revoked elsewhere once told to forget (key:revoke on the local runtime)', async () => {
    const store = countingStore();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, clock().now);
    const issued = await createAccount(cached, 'someone');
    const bearer = `Bearer ${issued.api_key}`;
    await authenticate(cached, bearer);

    await store.revokeApiKey(issued.account.account_id, issued.key_id, Date.now());
    cached.forgetAll();
    await expect(authenticate(cached, bearer)).rejects.toThrow(UnauthorizedError);
  });

  it('does not remember unknown keys: a key made by another process works at once', async () => {
    const store = countingStore();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, clock().now);
    const issued = await createAccount(store, 'someone');
    const record = store.keys.pop();
    await expect(authenticate(cached, `Bearer ${issued.api_key}`)).rejects.toThrow(UnauthorizedError);
    if (record) store.keys.push(record);
    await expect(authenticate(cached, `Bearer ${issued.api_key}`)).resolves.toMatchObject({
      account: issued.account,
    });
  });

  it('reads the account as well for a key stored before keys carried their account, then neither', async () => {
    const store = countingStore();
    const cached = new CachedAccountStore(store, API_KEY_CACHE_SECONDS * 1000, clock().now);
    const issued = await createAccount(cached, 'someone');
    delete store.keys[0]?.account;
    const bearer = `Bearer ${issued.api_key}`;

    expect((await authenticate(cached, bearer)).account).toEqual(issued.account);
    expect(store.reads).toBe(2);
    await authenticate(cached, bearer);
    expect(store.reads).toBe(2);
  });
});

import type { AccountStore } from '../ports/account-store.ts';
import type { Account, ApiKeyRecord } from './account.ts';

/**
 * How long a process trusts what it read of an API key or an account. A key revoked through this
 * process is forgotten at once; one revoked through another process (another Lambda container) is
 * refused there after at most this long (docs/self-hosting.md "Accounts and API keys", docs/api-decisions.md, revokeApiKey in
 * openapi.yaml say the same).
 */
export const API_KEY_CACHE_SECONDS = 60;
/** Beyond this many remembered keys or accounts the oldest is dropped: memory stays bounded. */
const MAX_ENTRIES = 10_000;

interface Remembered<T> {
  value: T;
  until: number;
}

/**
 * The account store with a short per-process memory of keys (by hash) and accounts, so that checking
 * the key of a request usually reads nothing. Unknown keys are not remembered (a new key is found at
 * once). Keys revoked through this store are forgotten at once; `forgetAll` serves revocations made
 * by another process that can reach this one (the local runtime, src/local/key-revocations.ts).
 */
export class CachedAccountStore implements AccountStore {
  private readonly keys = new Map<string, Remembered<ApiKeyRecord>>();
  private readonly accounts = new Map<string, Remembered<Account>>();
  /**
   * Counts revocations and `forgetAll`s: a read that was under way when one happened may have read
   * the key before it was revoked, so what it read is not remembered.
   */
  private forgets = 0;

  constructor(
    private readonly store: AccountStore,
    private readonly ttlMs = API_KEY_CACHE_SECONDS * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  createAccount(account: Account): Promise<void> {
    return this.store.createAccount(account);
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const cached = this.recall(this.accounts, accountId);
    if (cached) return cached;
    const forgetsBefore = this.forgets;
    const account = await this.store.getAccount(accountId);
    if (account && this.forgets === forgetsBefore) this.remember(this.accounts, accountId, account);
    return account;
  }

  putApiKey(key: ApiKeyRecord): Promise<void> {
    return this.store.putApiKey(key);
  }

  async getApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const cached = this.recall(this.keys, keyHash);
    if (cached) return cached;
    const forgetsBefore = this.forgets;
    const record = await this.store.getApiKeyByHash(keyHash);
    if (record && this.forgets === forgetsBefore) this.remember(this.keys, keyHash, record);
    return record;
  }

  listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.store.listApiKeys(accountId);
  }

  async revokeApiKey(accountId: string, keyId: string, now: number, keyHash?: string): Promise<boolean> {
    try {
      return await this.store.revokeApiKey(accountId, keyId, now, keyHash);
    } finally {
      this.forgets++;
      for (const [hash, { value }] of this.keys) {
        if (value.account_id === accountId && value.key_id === keyId) this.keys.delete(hash);
      }
    }
  }

  /** Forgets every key and account read so far: the next request of each reads its key again. */
  forgetAll(): void {
    this.forgets++;
    this.keys.clear();
    this.accounts.clear();
  }

  private recall<T>(memory: Map<string, Remembered<T>>, id: string): T | undefined {
    const entry = memory.get(id);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    memory.delete(id);
    return undefined;
  }

  private remember<T>(memory: Map<string, Remembered<T>>, id: string, value: T): void {
    memory.delete(id);
    if (memory.size >= MAX_ENTRIES) {
      const oldest = memory.keys().next().value;
      if (oldest !== undefined) memory.delete(oldest);
    }
    memory.set(id, { value, until: this.now() + this.ttlMs });
  }
}

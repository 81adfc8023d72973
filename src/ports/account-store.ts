import type { Account, ApiKeyRecord } from '../domain/account.ts';

export interface AccountStore {
  createAccount(account: Account): Promise<void>;
  getAccount(accountId: string): Promise<Account | null>;
  putApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Every key of the account, revoked ones included. */
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * Marks the key revoked; false when the account has no key with this ID. `keyHash`, when the
   * caller has already read the key's record, saves looking the key up again.
   */
  revokeApiKey(accountId: string, keyId: string, now: number, keyHash?: string): Promise<boolean>;
}

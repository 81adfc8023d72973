export interface Account {
  account_id: string;
  name: string;
  created_at: number;
}

export interface ApiKeyRecord {
  key_id: string;
  account_id: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** Who is calling: resolved from the bearer key before any handler runs. */
export interface Caller {
  account: Account;
  /** The key of this request: its public identifier and when it was issued, never the secret. */
  api_key: Pick<ApiKeyRecord, 'key_id' | 'created_at'>;
}

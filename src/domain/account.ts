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
  key_id: string;
}

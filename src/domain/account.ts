import type { McpScope } from './scopes.ts';

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
  /** The owner's label for the key (keys made before labels existed have none). */
  name?: string | null;
  /** The key's first characters (`svc_sk_` and 4 more), so its owner can tell keys apart; never enough to use. */
  prefix?: string | null;
  /**
   * What the key may do: the scopes of the credential that made it, or fewer. Keys made before keys
   * carried scopes, and the account's first key, have none recorded: they hold every scope.
   */
  scopes?: McpScope[] | null;
  /**
   * The owner's account as it was when the key was made (accounts never change), so that checking a
   * key reads one item. Keys made before keys carried it have none: their check reads the account.
   * Nothing deletes accounts; whatever would must revoke or delete the account's keys too.
   */
  account?: Account;
}

/** An API key as its owner sees it: never the secret nor its hash. */
export interface ApiKeyView {
  key_id: string;
  name: string | null;
  prefix: string | null;
  created_at: number;
  revoked_at: number | null;
  scopes: McpScope[];
}

/** Who is calling: resolved from the bearer credential before any handler runs. */
export interface Caller {
  account: Account;
  /** The key of this request: its public identifier and when it was issued, never the secret. Null for a token. */
  api_key: { key_id: string; created_at: number; scopes: McpScope[] } | null;
  /** The OAuth access token of this request (audience: the REST API): its client and scopes. Null for a key. */
  access_token: AccessTokenUse | null;
}

export interface AccessTokenUse {
  client_id: string;
  scopes: McpScope[];
  /** The session (the OAuth grant) the token belongs to: what listSessions marks as current. */
  session_id: string;
}

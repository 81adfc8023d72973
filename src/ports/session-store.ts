import type { McpScope } from '../domain/scopes.ts';

/**
 * A live session of an account, as the authorization server keeps it: an application's grant (the
 * family of tokens from one consent: an MCP client, the web app in one tab) or a browser's sign-in
 * at the sign-in page (which lets that browser authorize without the key again).
 */
export interface StoredSession {
  session_id: string;
  kind: 'app' | 'browser';
  client_id: string | null;
  client_name: string | null;
  scopes: McpScope[];
  created_at: number;
  /** When it last issued tokens (an app) or was used to authorize (a browser); epoch ms. */
  last_used_at: number | null;
  /** When it ends at the latest, epoch ms. */
  expires_at: number;
  /** What signed in: an API key (by ID), the identity provider, or not recorded (older grants). */
  signed_in_with:
    | { kind: 'api_key'; key_id: string }
    | { kind: 'identity_provider' }
    | { kind: 'unrecorded' };
  /** For an app: the browser sign-in it was made through, whose end ends it too. */
  browser_session_id: string | null;
  /** For a browser: its User-Agent when it signed in, shortened. */
  user_agent: string | null;
}

/** The account's sessions (src/oauth/sessions.ts keeps them with the authorization server's records). */
export interface SessionStore {
  /** Live sessions only: not ended, not expired. */
  liveSessions(accountId: string, now: number): Promise<StoredSession[]>;
  /** Ends one live session, as `liveSessions` read it (a browser's ends the apps made through it). */
  endSession(accountId: string, session: StoredSession, now: number): Promise<void>;
  /** Ends every session the key signed in (used when the key is revoked). */
  endSessionsOfKey(accountId: string, keyId: string, now: number): Promise<void>;
}

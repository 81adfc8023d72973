import type { McpScope } from '../domain/scopes.ts';
import type { ApplicationType } from './application-type.ts';

/**
 * What the authorization server keeps (the port; src/adapters/dynamodb/oauth-store.ts implements it on
 * the single table). Codes and refresh tokens are stored only as SHA-256 hashes. Records that expire
 * carry `expires_at_s` (the table's TTL attribute); since TTL deletion is lazy (and absent locally),
 * every read checks expiry itself.
 */
export interface OAuthClient {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  grant_types: string[];
  /**
   * The registered scope, space-delimited: what an authorization request naming no scope gets (null:
   * the server's default). Not a limit: a request may ask for any supported scope, the user decides.
   */
  scope: string | null;
  /**
   * `registration`: RFC 7591; `metadata_document`: the client_id is the URL of its metadata;
   * `first_party`: built into the server (the web app, src/oauth/first-party.ts).
   */
  source: 'registration' | 'metadata_document' | 'first_party';
  /**
   * `web` or `native` (OpenID Connect registration; src/oauth/application-type.ts): declared by the
   * client or read from its redirect URIs. Absent on clients registered before it was recorded.
   */
  application_type?: ApplicationType;
  /**
   * The issuer a registered client registered with: its client_id is known there only (MCP 2026-07-28,
   * "Authorization Server Binding": credentials belong to the authorization server that issued them).
   * Absent on clients registered before it was recorded, and on clients that are not registered.
   */
  issuer?: string;
  created_at: number;
}

/** An authorization request between /oauth/authorize and the user's decision. */
export interface PendingAuthorization {
  request_id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  scopes: McpScope[];
  /** SHA-256 of the CSRF token of the form currently shown (sign-in, then a new one for consent). */
  csrf_hash: string;
  /** Set once the user has signed in. */
  account_id: string | null;
  /** What the upstream sign-in needs back at the callback (PKCE verifier, nonce). */
  upstream: Record<string, string> | null;
  /**
   * Set with the account when the consent page is drawn for a step-up: the grant it offers to widen
   * and the scopes that grant held then. The decision applies to exactly this (null: a new grant).
   */
  step_up?: StepUpShown | null;
  /**
   * Set with the account: the most the signed-in credential may give (an API key's scopes; every
   * scope after a sign-in at the identity provider). The consent page offers no scope beyond it.
   * Absent only on requests bound before sign-ins were bounded: then nothing may be given.
   */
  ceiling?: McpScope[];
  /**
   * The issuer the authorization request reached: the `iss` of its response (RFC 9207) and the issuer
   * its code and grant are bound to, wherever the upstream sign-in returns. Absent on older requests.
   */
  issuer?: string;
  /**
   * Set with the account: the credential that signed in. Checked again at the decision, so a key
   * revoked between sign-in and Allow gets no code; recorded on the grant, which ends with it.
   */
  credential?: SignInCredential;
  /** Set with the account: the browser's sign-in session this sign-in made or used, if any. */
  sign_in_id?: string | null;
  /**
   * Set with the account, for the web app in a signed-in browser: what its earlier grants through
   * the same sign-in already allow of what is asked. Kept without asking; the page asks for the rest.
   */
  allowed_before?: McpScope[];
  /** The client's name, for the grant's entry in the account's list of sessions. */
  client_name?: string | null;
  /**
   * SHA-256 of the value of the cookie that binds this request to the browser that opened it
   * (`src/oauth/sign-in-session.ts`). Only a sign-in posted by that browser starts a sign-in session,
   * so a forged cross-site form cannot leave the person signed in to someone else's account.
   */
  browser_hash?: string | null;
  created_at: number;
  expires_at_s: number;
}

/**
 * What signed a person in: one of the account's API keys (its hash, to check it is still live
 * without an index read), or the upstream identity provider (the whole account).
 */
export type SignInCredential =
  | { kind: 'api_key'; key_id: string; key_hash: string }
  | { kind: 'identity_provider'; issuer: string };

/**
 * A browser's sign-in at the authorization server (the sign-in session its cookie names): while it
 * lives, a new authorization from that browser asks for no key. Kept under the account, beside the
 * grants; the cookie carries the account, the ID and a secret whose hash only is stored.
 */
export interface SignInSessionRecord {
  sign_in_id: string;
  account_id: string;
  secret_hash: string;
  credential: SignInCredential;
  /** The most a grant made through this session may hold: the key's scopes, or every scope. */
  scopes: McpScope[];
  /** The browser that signed in, as it said (User-Agent, shortened), so a person can tell sessions apart. */
  user_agent: string | null;
  created_at: number;
  last_used_at: number;
  /** Unused for this long (epoch seconds), it ends; each use moves it on. */
  idle_expires_at_s: number;
  /** However often it is used, it ends then (epoch seconds): the table's TTL attribute. */
  expires_at_s: number;
  revoked_at: number | null;
}

/** What `bindAccount` records on a pending request once the person has signed in. */
export interface AccountBinding {
  accountId: string;
  /** SHA-256 of the consent form's CSRF token. */
  csrfHash: string;
  /** When given, only the form that was shown (this CSRF hash) may bind. */
  expectedCsrfHash: string | null;
  stepUp: StepUpShown | null;
  ceiling: McpScope[];
  credential: SignInCredential;
  signInId: string | null;
  allowedBefore: McpScope[];
}

export interface StepUpShown {
  grant_id: string;
  held: McpScope[];
}

export interface GrantRecord {
  grant_id: string;
  account_id: string;
  client_id: string;
  scopes: McpScope[];
  resource: string;
  created_at: number;
  expires_at_s: number;
  revoked_at: number | null;
  /**
   * Scopes the MCP server refused a call for (403 insufficient_scope). A refresh cannot add scopes,
   * so while this is set the grant's refresh tokens answer `invalid_grant`: the client authorizes
   * again and asks for them there; the consent adds what the user approves to this grant. Absent until
   * a step-up is recorded, and removed again once the user has decided on it (approved or declined).
   */
  step_up_scopes?: McpScope[];
  /**
   * Until when (epoch seconds) `step_up_scopes` holds: a client that never completes the
   * authorization does not leave the grant's refreshes blocked for good.
   */
  step_up_until_s?: number;
  /**
   * Scopes the user left unticked (or denied) on this grant's step-up consent, and until when (epoch
   * seconds) the MCP server does not ask for them again: the refused call that follows a decision
   * must not hold back the grant's refreshes once more (the MCP SDK would then drop its tokens).
   */
  step_up_declined?: McpScope[];
  step_up_declined_until_s?: number;
  /** The issuer that granted it: its refresh tokens are redeemed there only. Absent on older grants. */
  issuer?: string;
  /** What signed the person in: revoking that key ends this grant. Absent on grants made before it was recorded. */
  credential?: SignInCredential;
  /** The browser sign-in session it was made through, if any: ending that ends this grant too. */
  sign_in_id?: string | null;
  /** The client's name when the grant was made, for the account's list of sessions. */
  client_name?: string | null;
  /** When it last issued tokens (the code exchange, each refresh), epoch ms. */
  last_used_at?: number;
}

export interface AuthorizationCodeRecord {
  code_hash: string;
  grant_id: string;
  account_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scopes: McpScope[];
  created_at: number;
  expires_at_s: number;
  used_at: number | null;
  /**
   * A step-up code: `grant_id` is the client's existing grant, which the exchange widens to `scopes`.
   * A failed exchange then leaves that grant as it was (a fresh grant ends with its failed code).
   */
  widens_grant?: boolean;
  /** Set when the exchange passed its checks and tokens were issued: only then does a reuse revoke. */
  issued_at?: number;
  /** The issuer that issued the code: it is exchanged at that issuer's token endpoint only. */
  issuer?: string;
}

export interface RefreshTokenRecord {
  token_hash: string;
  grant_id: string;
  account_id: string;
  client_id: string;
  scopes: McpScope[];
  resource: string;
  created_at: number;
  expires_at_s: number;
  /** Set when the token was exchanged for a new one; presenting it again is reuse. */
  rotated_at: number | null;
}

/** An upstream identity (issuer + subject) and the account it signs in to. */
export interface IdentityLink {
  issuer: string;
  subject: string;
  account_id: string;
  created_at: number;
}

/** The outcome of marking a single-use record used. */
export type Redemption<T> =
  | { outcome: 'redeemed'; record: T }
  | { outcome: 'reused'; record: T }
  | { outcome: 'unknown' };

export interface OAuthStore {
  putClient(client: OAuthClient): Promise<void>;
  /**
   * Counts one registration from `source` in the window starting at `windowStartS` (epoch seconds) and
   * answers the window's count, this one included; the counter expires at `expiresAtS`.
   */
  countRegistration(source: string, windowStartS: number, expiresAtS: number): Promise<number>;
  getClient(clientId: string): Promise<OAuthClient | null>;

  putPendingAuthorization(request: PendingAuthorization): Promise<void>;
  /** The request, or null when it does not exist or has expired. */
  getPendingAuthorization(requestId: string, now: number): Promise<PendingAuthorization | null>;
  /**
   * Records the signed-in account and the CSRF token of the consent form. Only once per request, only
   * before it expires, and (when `expectedCsrfHash` is given) only from the form that was shown.
   */
  bindAccount(requestId: string, binding: AccountBinding, now: number): Promise<boolean>;
  /**
   * Removes and returns the request if its CSRF hash matches (and, with `signedIn`, an account is
   * bound), so that a request is decided at most once; null otherwise.
   */
  takePendingAuthorization(
    requestId: string,
    csrfHash: string,
    signedIn: boolean,
    now: number,
  ): Promise<PendingAuthorization | null>;

  putGrant(grant: GrantRecord): Promise<void>;
  getGrant(accountId: string, grantId: string): Promise<GrantRecord | null>;
  revokeGrant(accountId: string, grantId: string, now: number): Promise<void>;
  /** Records that the grant issued tokens now (`last_used_at`); nothing when it is gone. */
  markGrantUsed(accountId: string, grantId: string, now: number): Promise<void>;
  /** Every grant and sign-in session of the account, ended and expired ones included (one query). */
  accountSessions(accountId: string): Promise<{ grants: GrantRecord[]; signIns: SignInSessionRecord[] }>;

  putSignIn(session: SignInSessionRecord): Promise<void>;
  getSignIn(accountId: string, signInId: string): Promise<SignInSessionRecord | null>;
  /** Moves the session's last use and idle expiry on; nothing when it is gone or ended. */
  touchSignIn(accountId: string, signInId: string, now: number, idleExpiresAtS: number): Promise<void>;
  /** Ends the sign-in session (the first end time stays); nothing when it is gone. */
  endSignIn(accountId: string, signInId: string, now: number): Promise<void>;
  /**
   * Sets the grant's `step_up_scopes` until `untilS` (the latest step-up wins); nothing when the
   * grant is gone.
   */
  recordStepUp(accountId: string, grantId: string, scopes: McpScope[], untilS: number): Promise<void>;
  /** The account's live grants to the client that wait for a step-up (`step_up_scopes` set, not past). */
  grantsAwaitingStepUp(accountId: string, clientId: string, now: number): Promise<GrantRecord[]>;
  /**
   * Ends a step-up: removes `step_up_scopes` (and its time) and, when `scopes` is given, sets the grant's scopes to
   * it. Only on a grant that is not revoked; false when there is none.
   */
  settleStepUp(accountId: string, grantId: string, scopes?: McpScope[]): Promise<boolean>;
  /**
   * The user decided on a step-up: removes `step_up_scopes` and records what was declined (possibly
   * nothing) until `untilS`. Nothing when the grant is gone.
   */
  decideStepUp(accountId: string, grantId: string, declined: McpScope[], untilS: number): Promise<void>;

  putCode(code: AuthorizationCodeRecord): Promise<void>;
  /** Marks the code used, atomically: only the first caller gets `redeemed`. */
  redeemCode(codeHash: string, now: number): Promise<Redemption<AuthorizationCodeRecord>>;
  /** Records that the code's exchange succeeded (`issued_at`). */
  markCodeIssued(codeHash: string, now: number): Promise<void>;

  putRefreshToken(token: RefreshTokenRecord): Promise<void>;
  getRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Marks the refresh token rotated, atomically: only the first caller gets `redeemed`. */
  rotateRefreshToken(tokenHash: string, now: number): Promise<Redemption<RefreshTokenRecord>>;

  getIdentity(issuer: string, subject: string): Promise<IdentityLink | null>;
  /** Stores the link unless one exists; returns the link that holds (the existing one on a race). */
  linkIdentity(link: IdentityLink): Promise<IdentityLink>;
}

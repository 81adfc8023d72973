import type { SessionStore, StoredSession } from '../ports/session-store.ts';
import { signInLive } from './sign-in-session.ts';
import type { GrantRecord, OAuthStore, SignInCredential, SignInSessionRecord } from './store.ts';

/**
 * An account's sessions, read from and ended in the authorization server's records: each live grant
 * is an application's session, each live sign-in session a browser's. Ending a browser's ends the
 * grants made through it; revoking a key ends everything it signed in.
 */
export class OAuthSessions implements SessionStore {
  constructor(private readonly store: OAuthStore) {}

  async liveSessions(accountId: string, now: number): Promise<StoredSession[]> {
    const { grants, signIns } = await this.store.accountSessions(accountId);
    return [
      ...signIns.filter((signIn) => signInLive(signIn, now)).map(browserSession),
      ...grants.filter((grant) => grantLive(grant, now)).map(appSession),
    ].sort((a, b) => b.created_at - a.created_at);
  }

  async endSession(accountId: string, session: StoredSession, now: number): Promise<void> {
    if (session.kind === 'browser')
      await endSignInAndItsGrants(this.store, accountId, session.session_id, now);
    else await this.store.revokeGrant(accountId, session.session_id, now);
  }

  async endSessionsOfKey(accountId: string, keyId: string, now: number): Promise<void> {
    const { grants, signIns } = await this.store.accountSessions(accountId);
    const byKey = (credential: SignInCredential | undefined) =>
      credential?.kind === 'api_key' && credential.key_id === keyId;
    await Promise.all([
      ...signIns
        .filter((signIn) => signIn.revoked_at === null && byKey(signIn.credential))
        .map((signIn) => this.store.endSignIn(accountId, signIn.sign_in_id, now)),
      ...grants
        .filter((grant) => grant.revoked_at === null && byKey(grant.credential))
        .map((grant) => this.store.revokeGrant(accountId, grant.grant_id, now)),
    ]);
  }
}

/**
 * Signs a browser out: ends its sign-in session and every grant made through it (each tab of the web
 * app it signed in), as "Sign out" does in the web app.
 */
export async function endSignInAndItsGrants(
  store: OAuthStore,
  accountId: string,
  signInId: string,
  now: number,
  known?: GrantRecord[],
): Promise<void> {
  const grants = known ?? (await store.accountSessions(accountId)).grants;
  await store.endSignIn(accountId, signInId, now);
  await Promise.all(
    grants
      .filter((grant) => grant.sign_in_id === signInId && grant.revoked_at === null)
      .map((grant) => store.revokeGrant(accountId, grant.grant_id, now)),
  );
}

function grantLive(grant: GrantRecord, now: number): boolean {
  return grant.revoked_at === null && grant.expires_at_s * 1000 > now;
}

function signedInWith(credential: SignInCredential | undefined): StoredSession['signed_in_with'] {
  if (!credential) return { kind: 'unrecorded' };
  return credential.kind === 'api_key'
    ? { kind: 'api_key', key_id: credential.key_id }
    : { kind: 'identity_provider' };
}

function appSession(grant: GrantRecord): StoredSession {
  return {
    session_id: grant.grant_id,
    kind: 'app',
    client_id: grant.client_id,
    client_name: grant.client_name ?? null,
    scopes: grant.scopes,
    created_at: grant.created_at,
    last_used_at: grant.last_used_at ?? null,
    expires_at: grant.expires_at_s * 1000,
    signed_in_with: signedInWith(grant.credential),
    browser_session_id: grant.sign_in_id ?? null,
    user_agent: null,
  };
}

function browserSession(signIn: SignInSessionRecord): StoredSession {
  return {
    session_id: signIn.sign_in_id,
    kind: 'browser',
    client_id: null,
    client_name: null,
    scopes: signIn.scopes,
    created_at: signIn.created_at,
    last_used_at: signIn.last_used_at,
    expires_at: Math.min(signIn.idle_expires_at_s, signIn.expires_at_s) * 1000,
    signed_in_with: signedInWith(signIn.credential),
    browser_session_id: null,
    user_agent: signIn.user_agent,
  };
}

import type { AccountStore } from '../ports/account-store.ts';
import type { SessionStore, StoredSession } from '../ports/session-store.ts';
import type { Caller } from './account.ts';
import { lackedToEnd } from './accounts.ts';
import { ForbiddenError, NotFoundError } from './errors.ts';

/**
 * An account's sessions as its owner sees them (listSessions): every application and browser signed
 * in to it, what each may do, what signed it in, and whether the caller itself is it.
 */
export interface SessionView extends Omit<StoredSession, 'signed_in_with'> {
  /** What signed it in; for a key, also its name and prefix, so the owner recognises it. */
  signed_in_with:
    | { kind: 'api_key'; key_id: string; name: string | null; prefix: string | null }
    | { kind: 'identity_provider' }
    | { kind: 'unrecorded' };
  /** The session of the credential making this request (the web app tab asking, and its browser). */
  current: boolean;
}

/** The account's live sessions, newest first. */
export async function listSessions(
  sessions: SessionStore,
  accounts: AccountStore,
  caller: Caller,
  now = Date.now(),
): Promise<SessionView[]> {
  const [live, keys] = await Promise.all([
    sessions.liveSessions(caller.account.account_id, now),
    accounts.listApiKeys(caller.account.account_id),
  ]);
  const own = ownSessions(caller, live);
  return live.map((session) => {
    const signedInWith = session.signed_in_with;
    const key =
      signedInWith.kind === 'api_key' ? keys.find((k) => k.key_id === signedInWith.key_id) : undefined;
    return {
      ...session,
      signed_in_with:
        signedInWith.kind === 'api_key'
          ? {
              kind: 'api_key',
              key_id: signedInWith.key_id,
              name: key?.name ?? null,
              prefix: key?.prefix ?? null,
            }
          : signedInWith,
      current: own.has(session.session_id),
    };
  });
}

/**
 * Ends one of the account's sessions. A credential may always end its own; ending another takes
 * `notes:write` and every permission that session holds (as revoking a key does): a narrowed key
 * must not sign the owner out. Another account's session is not found.
 */
export async function endSession(
  sessions: SessionStore,
  caller: Caller,
  sessionId: string,
  now = Date.now(),
): Promise<void> {
  const accountId = caller.account.account_id;
  const session = (await sessions.liveSessions(accountId, now)).find((s) => s.session_id === sessionId);
  if (!session) throw new NotFoundError('No such session in this account: it may have ended already');
  if (!ownSessions(caller, [session]).has(sessionId)) {
    const beyond = lackedToEnd(caller, session.scopes);
    if (beyond.length > 0) {
      throw new ForbiddenError(
        `Ending this session takes ${beyond.join(' and ')}, which the credential ending it does not hold: only a credential holding notes:write and every permission of a session can end it (any credential may end its own).`,
      );
    }
  }
  await sessions.endSession(accountId, session, now);
}

/**
 * Ends every session but the caller's own (and the browser sign-in it came through): "sign out
 * everywhere else". Sessions holding more than the caller may end are left, and counted.
 */
export async function endOtherSessions(
  sessions: SessionStore,
  caller: Caller,
  now = Date.now(),
): Promise<{ ended: number; left: number }> {
  const accountId = caller.account.account_id;
  const live = await sessions.liveSessions(accountId, now);
  const own = ownSessions(caller, live);
  const others = live.filter((session) => !own.has(session.session_id));
  const endable = others.filter((session) => lackedToEnd(caller, session.scopes).length === 0);
  // An app made through a browser that ends here ends with it: no call of its own.
  const endedBrowsers = new Set(endable.filter((s) => s.kind === 'browser').map((s) => s.session_id));
  const calls = endable.filter((s) => !(s.browser_session_id && endedBrowsers.has(s.browser_session_id)));
  await Promise.all(calls.map((session) => sessions.endSession(accountId, session, now)));
  return { ended: endable.length, left: others.length - endable.length };
}

/** The caller's own session and the browser sign-in it came through (a key has none). */
function ownSessions(caller: Caller, live: readonly StoredSession[]): Set<string> {
  const grantId = caller.access_token?.session_id;
  if (!grantId) return new Set();
  const grant = live.find((session) => session.session_id === grantId);
  return new Set([grantId, ...(grant?.browser_session_id ? [grant.browser_session_id] : [])]);
}

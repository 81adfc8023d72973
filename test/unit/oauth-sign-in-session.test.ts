import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../src/domain/account.ts';
import type { OAuthDeps } from '../../src/oauth/deps.ts';
import { lifetimes } from '../../src/oauth/settings.ts';
import { browserRequest, liveSignIn, startSignInSession } from '../../src/oauth/sign-in-session.ts';
import type { OAuthStore, SignInSessionRecord } from '../../src/oauth/store.ts';

const START = Date.UTC(2026, 11, 6);
const DAY = 86_400_000;
const KEY: ApiKeyRecord = {
  key_id: 'key_0123456789abcdef',
  account_id: 'account-1',
  key_hash: 'a'.repeat(64),
  created_at: START,
  revoked_at: null,
};

/** The sign-in sessions and one API key, in memory; `clock` is the time the deps answer. */
function world(issuer = 'http://127.0.0.1:8787') {
  const signIns = new Map<string, SignInSessionRecord>();
  const key = { ...KEY };
  const clock = { now: START };
  const store = {
    putSignIn: async (record: SignInSessionRecord) => void signIns.set(record.sign_in_id, { ...record }),
    getSignIn: async (_account: string, id: string) => signIns.get(id) ?? null,
    touchSignIn: async (_account: string, id: string, now: number, idle: number) => {
      const record = signIns.get(id);
      if (record && record.revoked_at === null)
        Object.assign(record, { last_used_at: now, idle_expires_at_s: idle });
    },
    endSignIn: async (_account: string, id: string, now: number) => {
      const record = signIns.get(id);
      if (record && record.revoked_at === null) record.revoked_at = now;
    },
  } as unknown as OAuthStore;
  const deps = {
    settings: { issuer },
    store,
    accounts: { getApiKeyByHash: async (hash: string) => (hash === key.key_hash ? key : null) },
    now: () => clock.now,
  } as unknown as OAuthDeps;
  return { deps, signIns, key, clock };
}

async function signedIn(w: ReturnType<typeof world>) {
  const credential = { kind: 'api_key' as const, key_id: KEY.key_id, key_hash: KEY.key_hash };
  const started = await startSignInSession(
    w.deps,
    'account-1',
    credential,
    ['notes:read'],
    browserRequest([]),
  );
  const [pair = ''] = started.cookie.split(';');
  return { ...started, browser: browserRequest([pair]) };
}

describe("a browser's sign-in session", () => {
  it('is found from its cookie, and each use moves its idle expiry on', async () => {
    const w = world();
    const { browser, record } = await signedIn(w);
    w.clock.now += 6 * DAY;
    expect((await liveSignIn(w.deps, browser))?.sign_in_id).toBe(record.sign_in_id);
    w.clock.now += 6 * DAY;
    expect(await liveSignIn(w.deps, browser)).not.toBeNull();
  });

  it('ends after a week unused', async () => {
    const w = world();
    const { browser } = await signedIn(w);
    w.clock.now += lifetimes.signInIdle * 1000 + 1000;
    expect(await liveSignIn(w.deps, browser)).toBeNull();
  });

  it('ends after 30 days however often it is used', async () => {
    const w = world();
    const { browser } = await signedIn(w);
    for (let day = 0; day < 29; day++) {
      w.clock.now += DAY;
      expect(await liveSignIn(w.deps, browser)).not.toBeNull();
    }
    w.clock.now += 2 * DAY;
    expect(await liveSignIn(w.deps, browser)).toBeNull();
  });

  it('ends once the key it was signed in with is revoked, even if the revocation did not reach it', async () => {
    const w = world();
    const { browser, record } = await signedIn(w);
    w.key.revoked_at = START + 1;
    expect(await liveSignIn(w.deps, browser)).toBeNull();
    expect(w.signIns.get(record.sign_in_id)?.revoked_at).not.toBeNull();
  });

  it('is not found with a wrong secret, another account, or a malformed cookie', async () => {
    const w = world();
    const { cookie } = await signedIn(w);
    const value = (cookie.split(';')[0] ?? '').slice('notes-signin='.length);
    const [account, id] = value.split('.');
    for (const forged of [
      `${account}.${id}.${'x'.repeat(43)}`,
      `other.${id}.${value.split('.')[2]}`,
      'garbage',
      `${value}.extra`,
    ]) {
      expect(await liveSignIn(w.deps, browserRequest([`notes-signin=${forged}`]))).toBeNull();
    }
  });

  it('is Secure and __Secure- named over HTTPS, HttpOnly and SameSite=Lax always', async () => {
    const w = world('https://notes.example.com');
    const { cookie, browser } = await signedIn(w);
    expect(cookie).toMatch(
      /^__Secure-notes-signin=[^;]+; Path=\/oauth; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/,
    );
    expect(await liveSignIn(w.deps, browser)).not.toBeNull();
  });
});

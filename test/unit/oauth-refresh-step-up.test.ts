import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { McpScope } from '../../src/domain/scopes.ts';
import type { OAuthDeps } from '../../src/oauth/deps.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import { hashSecret } from '../../src/oauth/secrets.ts';
import type { OAuthSettings } from '../../src/oauth/settings.ts';
import { generateSigningKey, loadSigningKey, type SigningKey } from '../../src/oauth/signing-key.ts';
import type { GrantRecord, OAuthStore, RefreshTokenRecord } from '../../src/oauth/store.ts';
import { type TokenResponse, tokenRequest } from '../../src/oauth/tokens.ts';

const ISSUER = 'https://notes.example.com';
const RESOURCE = `${ISSUER}/mcp`;
const NOW = 1_750_000_000_000;
const ACCOUNT = 'account-1';
const CLIENT = 'client-1';
/** When a step-up recorded now stops holding back refreshes. */
const UNTIL = NOW / 1000 + 1200;

/** The grant and refresh-token part of the store, in memory. */
function memoryStore() {
  const grants = new Map<string, GrantRecord>();
  const refreshTokens = new Map<string, RefreshTokenRecord>();
  const store = {
    putGrant: async (grant: GrantRecord) => void grants.set(grant.grant_id, { ...grant }),
    getGrant: async (_account: string, grantId: string) => grants.get(grantId) ?? null,
    markGrantUsed: async (_account: string, grantId: string, now: number) => {
      const grant = grants.get(grantId);
      if (grant) grant.last_used_at = now;
    },
    revokeGrant: async (_account: string, grantId: string, now: number) => {
      const grant = grants.get(grantId);
      if (grant && grant.revoked_at === null) grant.revoked_at = now;
    },
    recordStepUp: async (_account: string, grantId: string, scopes: McpScope[], untilS: number) => {
      const grant = grants.get(grantId);
      if (grant) Object.assign(grant, { step_up_scopes: scopes, step_up_until_s: untilS });
    },
    settleStepUp: async (_account: string, grantId: string, scopes?: McpScope[]) => {
      const grant = grants.get(grantId);
      if (!grant || grant.revoked_at !== null) return false;
      delete grant.step_up_scopes;
      delete grant.step_up_until_s;
      if (scopes) grant.scopes = scopes;
      return true;
    },
    putRefreshToken: async (token: RefreshTokenRecord) => void refreshTokens.set(token.token_hash, token),
    getRefreshToken: async (hash: string) => refreshTokens.get(hash) ?? null,
    rotateRefreshToken: async (hash: string, now: number) => {
      const token = refreshTokens.get(hash);
      if (!token) return { outcome: 'unknown' as const };
      if (token.rotated_at !== null) return { outcome: 'reused' as const, record: token };
      token.rotated_at = now;
      return { outcome: 'redeemed' as const, record: token };
    },
  };
  return { store: store as unknown as OAuthStore, grants, refreshTokens };
}

let signingKey: SigningKey;

beforeAll(async () => {
  signingKey = await loadSigningKey(await generateSigningKey());
});

function setup() {
  const memory = memoryStore();
  const clock = { now: NOW };
  const deps = {
    settings: {
      issuer: ISSUER,
      resource: RESOURCE,
      sites: [{ issuer: ISSUER, resource: RESOURCE, restResource: `${ISSUER}/v1` }],
    } satisfies Pick<OAuthSettings, 'issuer' | 'resource' | 'sites'>,
    store: memory.store,
    signingKey,
    now: () => clock.now,
  } as unknown as OAuthDeps;
  /** A grant as consent creates it, with one refresh token. */
  const consent = async (scopes: McpScope[]) => {
    const grantId = randomUUID();
    await memory.store.putGrant({
      grant_id: grantId,
      account_id: ACCOUNT,
      client_id: CLIENT,
      scopes,
      resource: RESOURCE,
      created_at: NOW,
      expires_at_s: NOW / 1000 + 86_400,
      revoked_at: null,
    });
    const refreshToken = `refresh-${grantId}`;
    await memory.store.putRefreshToken({
      token_hash: hashSecret(refreshToken),
      grant_id: grantId,
      account_id: ACCOUNT,
      client_id: CLIENT,
      scopes,
      resource: RESOURCE,
      created_at: NOW,
      expires_at_s: NOW / 1000 + 86_400,
      rotated_at: null,
    });
    return { grantId, refreshToken };
  };
  // As the MCP SDK refreshes: no scope parameter, the resource, the client_id of a public client.
  const refresh = (refreshToken: string) =>
    tokenRequest(
      deps,
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: CLIENT,
        resource: RESOURCE,
      }),
    );
  return { ...memory, clock, consent, refresh };
}

async function refusal(promise: Promise<TokenResponse>): Promise<OAuthError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  return error as OAuthError;
}

describe('a refresh after the MCP server asked for more scope (step-up)', () => {
  it('answers 400 invalid_grant "authorize again", and revokes and rotates nothing', async () => {
    const { consent, refresh, store, grants, refreshTokens } = setup();
    const { grantId, refreshToken } = await consent(['notes:read', 'notes:process']);
    await store.recordStepUp(ACCOUNT, grantId, ['notes:write'], UNTIL);

    const error = await refusal(refresh(refreshToken));
    expect(error.status).toBe(400);
    expect(error.toBody()).toEqual({
      error: 'invalid_grant',
      error_description: 'More scope was requested (notes:write): authorize again',
    });
    // Not a reuse: the grant stands (its access tokens work until they expire), the token is not spent.
    expect(grants.get(grantId)?.revoked_at).toBeNull();
    expect(refreshTokens.get(hashSecret(refreshToken))?.rotated_at).toBeNull();
    expect(refreshTokens.size).toBe(1);
    // Asked again, the same answer: still no reuse detection, still nothing revoked.
    expect((await refusal(refresh(refreshToken))).error).toBe('invalid_grant');
    expect(grants.get(grantId)?.revoked_at).toBeNull();
  });

  it('refreshes as before without a step-up, and the new grant of a new consent is not held back by the old one', async () => {
    const { consent, refresh, store } = setup();
    const first = await consent(['notes:read', 'notes:process']);
    const rotated = await refresh(first.refreshToken);
    expect(rotated.scope).toBe('notes:read notes:process');

    await store.recordStepUp(ACCOUNT, first.grantId, ['notes:write'], UNTIL);
    expect((await refusal(refresh(rotated.refresh_token))).error).toBe('invalid_grant');

    // The client authorizes again for the wider scope: a new grant, for the same client and account.
    const second = await consent(['notes:read', 'notes:write', 'notes:process']);
    const widened = await refresh(second.refreshToken);
    expect(widened.scope).toBe('notes:read notes:write notes:process');
    expect((await refresh(widened.refresh_token)).refresh_token).toEqual(expect.any(String));
  });

  it('still treats a rotated refresh token as reuse first: invalid_grant and the grant revoked', async () => {
    const { consent, refresh, store, grants } = setup();
    const { grantId, refreshToken } = await consent(['notes:read']);
    await refresh(refreshToken);
    await store.recordStepUp(ACCOUNT, grantId, ['notes:delete'], UNTIL);
    expect((await refusal(refresh(refreshToken))).description).toMatch(/already used/);
    expect(grants.get(grantId)?.revoked_at).toBe(NOW);
  });

  it('refreshes with the old scopes once the user declined the step-up, and with the widened grant once approved', async () => {
    const { consent, refresh, store } = setup();
    const { grantId, refreshToken } = await consent(['notes:read', 'notes:process']);
    await store.recordStepUp(ACCOUNT, grantId, ['notes:write'], UNTIL);
    expect((await refusal(refresh(refreshToken))).error).toBe('invalid_grant');

    await store.settleStepUp(ACCOUNT, grantId);
    const declined = await refresh(refreshToken);
    expect(declined.scope).toBe('notes:read notes:process');

    await store.recordStepUp(ACCOUNT, grantId, ['notes:write'], UNTIL);
    await store.settleStepUp(ACCOUNT, grantId, ['notes:read', 'notes:write', 'notes:process']);
    // The refresh token was issued before the grant widened: the grant decides what it gets.
    expect((await refresh(declined.refresh_token)).scope).toBe('notes:read notes:write notes:process');
  });

  it('refreshes again once the step-up mark has expired, when the client never finished authorizing', async () => {
    const { consent, refresh, store, clock } = setup();
    const { grantId, refreshToken } = await consent(['notes:read', 'notes:process']);
    await store.recordStepUp(ACCOUNT, grantId, ['notes:write'], UNTIL);
    expect((await refusal(refresh(refreshToken))).error).toBe('invalid_grant');
    clock.now = UNTIL * 1000;
    expect((await refresh(refreshToken)).scope).toBe('notes:read notes:process');
  });
});

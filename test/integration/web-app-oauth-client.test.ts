import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The web app's OAuth client (issue 15): `notes-web`, built into the server, public (PKCE, no
 * secret), redirecting only to `/app/callback` on the service's own origin. Signing out revokes.
 */
let service: InProcessService;
let base: string;
let apiKey: string;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
});

afterAll(async () => {
  await service?.stop();
});

function authorizeUrl(redirectUri: string): string {
  const verifier = randomBytes(32).toString('base64url');
  return `${base}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: 'notes-web',
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${base}/v1`,
    state: 's',
  })}`;
}

describe('the web app client notes-web', () => {
  it('signs in without registering, with the consent page naming the service as its publisher', async () => {
    const page = await fetch(authorizeUrl(`${base}/app/callback`));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Notes web app');
  });

  it('gets a token for the REST API with every scope it asks for, ticked for the user, and uses it', async () => {
    const tokens = await accessTokenFor({
      baseUrl: base,
      apiKey,
      resource: `${base}/v1`,
      client: { clientId: 'notes-web', redirectUri: `${base}/app/callback` },
      scope: 'notes:read notes:write notes:process notes:delete',
    });
    expect(tokens.scope).toBe('notes:read notes:write notes:process notes:delete');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: 'notes-web', aud: `${base}/v1` });
    const account = await client(base, tokens.access_token)('GET', '/v1/account');
    expect(account.body.access_token).toMatchObject({ client_id: 'notes-web' });
  });

  it.each([
    ['another path', '/app/elsewhere'],
    ['another loopback port', null],
    ['another host', 'https://evil.example/app/callback'],
  ])('refuses a redirect URI on %s, without redirecting', async (_label, target) => {
    const other = new URL(base);
    other.port = String(Number(other.port) + 1);
    const redirectUri =
      target === null ? `${other.origin}/app/callback` : target.startsWith('/') ? `${base}${target}` : target;
    const page = await fetch(authorizeUrl(redirectUri), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain('Unregistered redirect URI');
  });

  it('signs out by revoking the refresh token as a public client: its access token stops working at once', async () => {
    const tokens = await accessTokenFor({
      baseUrl: base,
      apiKey,
      resource: `${base}/v1`,
      client: { clientId: 'notes-web', redirectUri: `${base}/app/callback` },
    });
    const api = client(base, tokens.access_token);
    expect((await api('GET', '/v1/notes')).status).toBe(200);
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: 'notes-web',
      }),
    });
    expect(revoked.status).toBe(200);
    expect((await api('GET', '/v1/notes')).status).toBe(401);
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: 'notes-web',
      }),
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes through the access token alone too (the app may hold only that one)', async () => {
    const tokens = await accessTokenFor({
      baseUrl: base,
      apiKey,
      resource: `${base}/v1`,
      client: { clientId: 'notes-web', redirectUri: `${base}/app/callback` },
    });
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: 'notes-web' }),
    });
    expect(revoked.status).toBe(200);
    expect((await client(base, tokens.access_token)('GET', '/v1/notes')).status).toBe(401);
  });
});

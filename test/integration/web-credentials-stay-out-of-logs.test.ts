import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The web app's credentials never reach the service's logs (issue 15): the REST access and refresh
 * tokens (accepted, refused for scope, revoked), API keys created and revoked through the API, and
 * playback links. The service runs as `npm start` does, in a child process whose output is kept.
 */
let service: RunningService;
const secrets: string[] = [];

beforeAll(async () => {
  service = await startService();
  const base = service.baseUrl;
  const tokens = await accessTokenFor({
    baseUrl: base,
    apiKey: service.apiKey,
    resource: `${base}/v1`,
    client: { clientId: 'notes-web', redirectUri: `${base}/app/callback` },
    tick: ['notes:delete'],
  });
  secrets.push(tokens.access_token, tokens.refresh_token);
  const api = client(base, tokens.access_token);
  expect((await api('GET', '/v1/notes')).status).toBe(200);
  const created = await api<{ key_id: string; api_key: string }>('POST', '/v1/account/keys', {
    body: { name: 'Logged?' },
  });
  expect(created.status).toBe(201);
  secrets.push(created.body.api_key);
  expect((await client(base, created.body.api_key)('GET', '/v1/account')).status).toBe(200);
  expect((await api('DELETE', `/v1/account/keys/${created.body.key_id}`)).status).toBe(204);
  expect((await client(base, created.body.api_key)('GET', '/v1/account')).status).toBe(401);
  // A refused token (MCP audience) and a malformed one are not echoed either.
  const mcp = await accessTokenFor({ baseUrl: base, apiKey: service.apiKey });
  secrets.push(mcp.access_token, mcp.refresh_token);
  expect((await client(base, mcp.access_token)('GET', '/v1/notes')).status).toBe(401);
  const forged = `${tokens.access_token.slice(0, -8)}AAAAAAAA`;
  secrets.push(forged);
  expect((await client(base, forged)('GET', '/v1/notes')).status).toBe(401);
  const note = randomUUID();
  await api('POST', `/v1/notes/${note}/transcription`, {
    body: { title: 'Not uploaded', content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect((await api('GET', `/v1/notes/${note}/audio`)).status).toBe(409);
  const revoked = await fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: tokens.refresh_token, client_id: 'notes-web' }),
  });
  expect(revoked.status).toBe(200);
  expect((await api('GET', '/v1/notes')).status).toBe(401);
}, 120_000);

afterAll(() => service?.stop());

describe('the logs of a web app session', () => {
  it('contain no access token, refresh token, created API key or bearer header', () => {
    const logs = service.output();
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logs).not.toContain(secret);
    expect(logs).not.toMatch(/Bearer\s+ey/);
    // JWTs start with a base64url JSON header: none is logged, whole or in part.
    expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/);
    expect(logs.replace(service.apiKey, '')).not.toContain('svc_sk_');
  });
});

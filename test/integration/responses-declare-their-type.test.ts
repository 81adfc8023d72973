import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../support/local-runtime.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service?.stop());

interface Sent {
  method?: string;
  key?: boolean;
  body?: string;
  type?: string;
}

async function send(path: string, { method = 'GET', key = true, body, type }: Sent = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${service.apiKey}`;
  if (type) headers['content-type'] = type;
  return fetch(`${service.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
}

/** A JSON answer says it is UTF-8 JSON and must not be sniffed as anything else. */
async function expectJson(response: Response, status: number): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(typeof (await response.json())).toBe('object');
}

describe('JSON responses carry charset=utf-8 and X-Content-Type-Options: nosniff', () => {
  it('on REST results and on every kind of REST error', async () => {
    const absent = randomUUID();
    await expectJson(await send('/v1/account'), 200);
    await expectJson(await send('/v1/notes'), 200);
    await expectJson(await send('/v1/account', { key: false }), 401);
    await expectJson(await send('/v1/notes/not-a-uuid'), 400);
    await expectJson(await send(`/v1/notes/${absent}`), 404);
    await expectJson(
      await send(`/v1/notes/${absent}/transcription`, { method: 'POST', body: '{}', type: 'text/plain' }),
      415,
    );
    const created = await send(`/v1/notes/${absent}/transcription`, {
      method: 'POST',
      type: 'application/json',
      body: JSON.stringify({ title: 'Headers', content_type: 'audio/wav', size_bytes: 100 }),
    });
    await expectJson(created, 202);
  });

  it('on the answers of the HTTP layer itself: no route, a wrong method, a body over the limit', async () => {
    await expectJson(await send('/v1/nothing-here'), 404);
    await expectJson(await send('/v1/notes', { method: 'PUT' }), 405);
    await expectJson(
      await send('/v1/ask', { method: 'POST', type: 'application/json', body: ' '.repeat(11 * 1024 * 1024) }),
      413,
    );
  });

  it('on OAuth metadata and OAuth errors, and on MCP errors', async () => {
    await expectJson(await send('/.well-known/oauth-authorization-server', { key: false }), 200);
    await expectJson(
      await send('/oauth/token', { method: 'POST', key: false, type: 'application/json', body: '{}' }),
      400,
    );
    await expectJson(
      await send('/oauth/register', { method: 'POST', key: false, type: 'application/json', body: '{' }),
      400,
    );
    await expectJson(
      await send('/mcp', { method: 'POST', key: false, type: 'application/json', body: '{}' }),
      401,
    );
  });

  it('and a deletion (no body) is not sniffed either', async () => {
    const noteId = randomUUID();
    await send(`/v1/notes/${noteId}/transcription`, {
      method: 'POST',
      type: 'application/json',
      body: JSON.stringify({ title: 'To delete', content_type: 'audio/wav', size_bytes: 100 }),
    });
    const deleted = await send(`/v1/notes/${noteId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

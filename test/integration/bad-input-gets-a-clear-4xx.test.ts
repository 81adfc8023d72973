import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiResponse, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { countItems } from '../support/storage.ts';

let service: RunningService;
let api: Api;

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
});
afterAll(() => service?.stop());

const validSubmission = { title: 'Standup', content_type: 'audio/wav', size_bytes: 1000 };

/** Each case must answer the status with a `detail` and store nothing. */
async function expectRejected(status: number, send: () => Promise<ApiResponse>, detail?: RegExp) {
  const before = await countItems(service);
  const response = await send();
  expect(response.status).toBe(status);
  expect(typeof response.body?.detail).toBe('string');
  if (detail) expect(String(response.body.detail)).toMatch(detail);
  expect(await countItems(service)).toBe(before);
}

describe('bad input gets a clear 4xx with a detail and stores nothing', () => {
  it('rejects malformed JSON with 400', () =>
    expectRejected(
      400,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          rawBody: '{"title": "x",',
          headers: { 'content-type': 'application/json' },
        }),
      /not valid JSON/,
    ));

  it('rejects a body that is not JSON by content type with 415', () =>
    expectRejected(
      415,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          rawBody: JSON.stringify(validSubmission),
          headers: { 'content-type': 'text/plain' },
        }),
      /application\/json/,
    ));

  it('rejects unknown properties with 400 naming them', () =>
    expectRejected(
      400,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          body: { ...validSubmission, colour: 'red' },
        }),
      /colour/,
    ));

  it('rejects a missing required field with 400 naming it', () =>
    expectRejected(
      400,
      () => api('POST', `/v1/notes/${randomUUID()}/transcription`, { body: { title: 'x', size_bytes: 10 } }),
      /content_type/,
    ));

  it('rejects an unsupported audio content type with 400', () =>
    expectRejected(
      400,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          body: { ...validSubmission, content_type: 'application/pdf' },
        }),
      /content_type/,
    ));

  it('rejects a note ID that is not a UUID with 400 on every note operation', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/notes/not-a-uuid', undefined],
      ['PATCH', '/v1/notes/not-a-uuid', { title: 'x' }],
      ['DELETE', '/v1/notes/not-a-uuid', undefined],
      ['POST', '/v1/notes/not-a-uuid/transcription', validSubmission],
      ['GET', '/v1/notes/not-a-uuid/transcription', undefined],
      ['DELETE', '/v1/notes/not-a-uuid/transcription', undefined],
      ['POST', '/v1/notes/not-a-uuid/insights', {}],
      ['GET', '/v1/notes/not-a-uuid/insights', undefined],
      ['POST', '/v1/notes/not-a-uuid/artifacts/podcast', { language: 'auto' }],
      ['GET', '/v1/notes/not-a-uuid/artifacts/podcast', undefined],
    ] as const) {
      await expectRejected(400, () => api(method, path, body ? { body } : {}), /note_id/);
    }
  });

  it('rejects a body over 64 KiB with 413', () =>
    expectRejected(413, () =>
      api('POST', `/v1/notes/${randomUUID()}/transcription`, {
        body: { ...validSubmission, title: 'x'.repeat(70 * 1024) },
      }),
    ));

  it('rejects a body over the gateway limit of 10 MiB with 413 before any handler runs', () =>
    expectRejected(413, () =>
      api('POST', `/v1/notes/${randomUUID()}/transcription`, {
        rawBody: Buffer.alloc(11 * 1024 * 1024, 0x20),
        headers: { 'content-type': 'application/json' },
      }),
    ));

  it('rejects a declared recording over 5 GiB with 413', () =>
    expectRejected(
      413,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          body: { ...validSubmission, size_bytes: 5 * 1024 ** 3 + 1 },
        }),
      /5 GiB/,
    ));

  it('rejects an empty or too long title with 400', async () => {
    await expectRejected(400, () =>
      api('POST', `/v1/notes/${randomUUID()}/transcription`, { body: { ...validSubmission, title: '  ' } }),
    );
    await expectRejected(400, () =>
      api('POST', `/v1/notes/${randomUUID()}/transcription`, {
        body: { ...validSubmission, title: 'x'.repeat(201) },
      }),
    );
  });

  it('rejects an update with nothing to change with 400', () =>
    expectRejected(400, () => api('PATCH', `/v1/notes/${randomUUID()}`, { body: {} }), /at least one/));

  it('rejects bad listNotes parameters with 400', async () => {
    await expectRejected(400, () => api('GET', '/v1/notes?limit=0'), /limit/);
    await expectRejected(400, () => api('GET', '/v1/notes?limit=101'), /limit/);
    await expectRejected(400, () => api('GET', '/v1/notes?state=deleted'), /state/);
    await expectRejected(400, () => api('GET', '/v1/notes?cursor=not-a-cursor'), /cursor/);
    await expectRejected(400, () => api('GET', '/v1/notes?sort=asc'), /sort/);
  });

  it('answers 401 with WWW-Authenticate for a missing, malformed or unknown key, before validating input', async () => {
    for (const key of [null, 'not-a-key', `svc_sk_${'A'.repeat(43)}`]) {
      const response = await api('POST', '/v1/notes/not-a-uuid/transcription', { key, rawBody: '{' });
      expect(response.status).toBe(401);
      expect(response.body.detail).toMatch(/API key/);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('answers 404 with a detail for an unknown path and 405 with Allow for a wrong method', async () => {
    const missing = await api('GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/No route/);
    const wrongMethod = await api('PUT', '/v1/notes');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('answers Ask with 400 and a detail while the account has no processed note', () =>
    expectRejected(
      400,
      () => api('POST', '/v1/ask', { body: { question: 'What did we decide?' } }),
      /no processed notes/,
    ));
});

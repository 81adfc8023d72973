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
  });

  it('ignores unknown query parameters on every operation, answering as without them', async () => {
    const absent = randomUUID();
    const note = `/v1/notes/${absent}`;
    const cases: Array<[string, string, unknown?]> = [
      ['GET', '/v1/account'],
      ['GET', '/v1/notes'],
      ['GET', '/v1/notes?state=trashed&limit=5'],
      ['GET', note],
      ['PATCH', note, { title: 'x' }],
      ['DELETE', note],
      ['GET', `${note}/transcription`],
      ['GET', `${note}/transcription?format=srt`],
      ['DELETE', `${note}/transcription`],
      ['POST', `${note}/insights`, {}],
      ['GET', `${note}/insights`],
      ['POST', `${note}/artifacts/podcast`, {}],
      ['GET', `${note}/artifacts/podcast`],
      ['POST', '/v1/ask', { question: 'What did we decide?' }],
    ];
    for (const [method, path, body] of cases) {
      const options = body === undefined ? {} : { body };
      const plain = await api(method, path, options);
      const extra = await api(method, `${path}${path.includes('?') ? '&' : '?'}utm_source=mail&_=1`, options);
      expect(extra.status, `${method} ${path}`).toBe(plain.status);
      expect(extra.body, `${method} ${path}`).toEqual(plain.body);
    }
    const created = await api('POST', `/v1/notes/${randomUUID()}/transcription?utm_source=mail`, {
      body: validSubmission,
    });
    expect(created.status).toBe(202);
  });

  it('still rejects bad values of known query parameters next to unknown ones', async () => {
    await expectRejected(400, () => api('GET', '/v1/notes?limit=0&utm_source=mail'), /limit/);
    await expectRejected(
      400,
      () => api('GET', `/v1/notes/${randomUUID()}/transcription?format=pdf&utm_source=mail`),
      /format/,
    );
  });

  it('answers 413 for a declared recording size over the limit whatever its magnitude', async () => {
    for (const size of ['5368709121', '9007199254740993', '1e20', '1e308', '1e400']) {
      await expectRejected(
        413,
        () =>
          api('POST', `/v1/notes/${randomUUID()}/transcription`, {
            rawBody: `{"title":"Standup","content_type":"audio/wav","size_bytes":${size}}`,
            headers: { 'content-type': 'application/json' },
          }),
        /5 GiB/,
      );
    }
  });

  it('answers 400 for a declared size that is not a positive integer, however large', async () => {
    for (const size of ['1.5', '0', '-1', '-1e400', '"1000"', '5368709120.5', 'null']) {
      await expectRejected(
        400,
        () =>
          api('POST', `/v1/notes/${randomUUID()}/transcription`, {
            rawBody: `{"title":"Standup","content_type":"audio/wav","size_bytes":${size}}`,
            headers: { 'content-type': 'application/json' },
          }),
        /size_bytes/,
      );
    }
  });

  it('limits titles and speaker names as sent, spaces included, as the contract counts them', async () => {
    await expectRejected(
      400,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          body: { ...validSubmission, title: `${'x'.repeat(200)} ` },
        }),
      /title: must be at most 200 characters/,
    );
    const noteId = randomUUID();
    expect((await api('POST', `/v1/notes/${noteId}/transcription`, { body: validSubmission })).status).toBe(
      202,
    );
    await expectRejected(
      400,
      () => api('PATCH', `/v1/notes/${noteId}`, { body: { title: ` ${'x'.repeat(200)}` } }),
      /title: must be at most 200 characters/,
    );
    await expectRejected(
      400,
      () =>
        api('PATCH', `/v1/notes/${noteId}`, {
          body: { speaker_names: { 'Speaker 1': `${'x'.repeat(100)} ` } },
        }),
      /must be at most 100 characters/,
    );
  });

  it('counts title and question lengths in characters as the contract does, an emoji being one', async () => {
    const emoji = '\u{1F600}';
    const noteId = randomUUID();
    const longest = `${'x'.repeat(199)}${emoji}`;
    const created = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { ...validSubmission, title: emoji.repeat(200) },
    });
    expect(created.status).toBe(202);
    expect(created.body.title).toBe(emoji.repeat(200));
    await expectRejected(
      400,
      () =>
        api('POST', `/v1/notes/${randomUUID()}/transcription`, {
          body: { ...validSubmission, title: emoji.repeat(201) },
        }),
      /title: must be at most 200 characters/,
    );

    const renamed = await api('PATCH', `/v1/notes/${noteId}`, { body: { title: longest } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe(longest);
    await expectRejected(
      400,
      () => api('PATCH', `/v1/notes/${noteId}`, { body: { title: `${longest}x` } }),
      /title: must be at most 200 characters/,
    );

    // 2000 emoji pass validation: the answer is about the (empty) account, not the question.
    const asked = await api('POST', '/v1/ask', { body: { question: emoji.repeat(2000) } });
    expect(asked.status).toBe(400);
    expect(asked.body.detail).toMatch(/no processed notes/);
    await expectRejected(
      400,
      () => api('POST', '/v1/ask', { body: { question: emoji.repeat(2001) } }),
      /question: must be at most 2000 characters/,
    );
  });

  it('rejects speaker names that could break a subtitle cue: line breaks, control characters, "-->"', async () => {
    const noteId = randomUUID();
    expect((await api('POST', `/v1/notes/${noteId}/transcription`, { body: validSubmission })).status).toBe(
      202,
    );
    for (const name of [
      'Alice\nBob',
      'Alice\r\n\r\n2\n00:00:01,000 --> 00:00:02,000',
      'Ann --> Bob',
      'Tab\there',
      'Bell\u0007',
      'Next\u0085line',
      'Line\u2028separator',
      'Alice\n',
    ]) {
      await expectRejected(
        400,
        () => api('PATCH', `/v1/notes/${noteId}`, { body: { speaker_names: { 'Speaker 1': name } } }),
        /speaker_names\.Speaker 1: must not contain line breaks, control characters or "-->"/,
      );
    }
    const fine = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Ann-Marie <ann@example.com> & co -> \u{1F600}' } },
    });
    expect(fine.status).toBe(200);
    expect(fine.body.speaker_names).toEqual({ 'Speaker 1': 'Ann-Marie <ann@example.com> & co -> \u{1F600}' });
  });

  it("refuses another speaker's label as a name (two people would look alike), and takes a label's own", async () => {
    const noteId = randomUUID();
    expect((await api('POST', `/v1/notes/${noteId}/transcription`, { body: validSubmission })).status).toBe(
      202,
    );
    await expectRejected(
      400,
      () => api('PATCH', `/v1/notes/${noteId}`, { body: { speaker_names: { 'Speaker 1': ' Speaker 2 ' } } }),
      /speaker_names: a name must not be another speaker's label/,
    );
    const own = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Speaker 1', 'Speaker 2': 'Speaker 2b' } },
    });
    expect(own.status).toBe(200);
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

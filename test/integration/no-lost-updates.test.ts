import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { type Api, type ApiResponse, client } from '../support/api.ts';
import { assertMatchesContract } from '../support/contract.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { transcribedNote } from '../support/transcribe.ts';

/** Strong (no W/), quoted, opaque. */
const STRONG_ETAG = /^"[\x21\x23-\x7e]+"$/;

let service: RunningService;
let api: Api;
let transcribedNoteId: string;

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  transcribedNoteId = await transcribedNote(api, 'Spoken');
});
afterAll(() => service?.stop());

/** A note awaiting its upload: nothing changes it but the test's own updates. */
async function createNote(title: string, as: Api = api): Promise<string> {
  const noteId = randomUUID();
  const response = await as('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 100 },
  });
  expect(response.status).toBe(202);
  return noteId;
}

function etagOf(response: { headers: Headers }): string {
  const etag = response.headers.get('etag');
  expect(etag).toMatch(STRONG_ETAG);
  return etag as string;
}

function patch(noteId: string, body: object, ifMatch?: string, as: Api = api) {
  return as('PATCH', `/v1/notes/${noteId}`, {
    body,
    ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
  });
}

describe('ETags of notes', () => {
  it('getNote answers with a strong ETag that stays while the note is unchanged and changes on every update', async () => {
    const noteId = await createNote('Tagged');
    const first = etagOf(await api('GET', `/v1/notes/${noteId}`));
    expect(etagOf(await api('GET', `/v1/notes/${noteId}`))).toBe(first);

    const renamed = await patch(noteId, { title: 'Tagged, renamed' });
    expect(renamed.status).toBe(200);
    const afterRename = etagOf(renamed);
    expect(afterRename).not.toBe(first);
    expect(etagOf(await api('GET', `/v1/notes/${noteId}`))).toBe(afterRename);

    const trashed = etagOf(await patch(noteId, { state: 'trashed' }, afterRename));
    const restored = etagOf(await patch(noteId, { state: 'active' }, trashed));
    const named = etagOf(await patch(noteId, { speaker_names: { 'Speaker 1': 'Ada' } }, restored));
    expect(new Set([first, afterRename, trashed, restored, named]).size).toBe(5);
  });

  it('updateNote with a stale If-Match answers 412 with a detail and changes nothing', async () => {
    const noteId = await createNote('Original');
    const stale = etagOf(await api('GET', `/v1/notes/${noteId}`));
    expect((await patch(noteId, { title: 'Changed by someone else' })).status).toBe(200);
    const before = await api('GET', `/v1/notes/${noteId}`);

    const refused = await patch(noteId, { title: 'My edit', state: 'trashed' }, stale);
    expect(refused.status).toBe(412);
    expect(refused.body.detail).toMatch(/changed since you read it/);

    const after = await api('GET', `/v1/notes/${noteId}`);
    expect(after.body).toEqual(before.body);
    expect(etagOf(after)).toBe(etagOf(before));
  });

  it('updateNote with the current If-Match, a list naming it, or * applies the change', async () => {
    const noteId = await createNote('Current');
    const current = etagOf(await api('GET', `/v1/notes/${noteId}`));
    const first = await patch(noteId, { title: 'First' }, current);
    expect(first.status).toBe(200);
    expect(first.body.title).toBe('First');
    const listed = await patch(noteId, { title: 'Second' }, `"stale-tag", ${etagOf(first)}`);
    expect(listed.status).toBe(200);
    const any = await patch(noteId, { title: 'Third' }, '*');
    expect(any.status).toBe(200);
    expect((await api('GET', `/v1/notes/${noteId}`)).body.title).toBe('Third');
  });

  it('two concurrent updates with the same ETag: exactly one wins, the other gets 412, and the note is the winner', async () => {
    const noteId = await createNote('Contended');
    for (let round = 0; round < 25; round += 1) {
      const etag = etagOf(await api('GET', `/v1/notes/${noteId}`));
      const titles = [`Browser edit ${round}`, `Agent edit ${round}`];
      const answers = await Promise.all(titles.map((title) => patch(noteId, { title }, etag)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 412]);
      const winner = answers.findIndex((answer) => answer.status === 200);
      const final = await api('GET', `/v1/notes/${noteId}`);
      expect(final.body.title).toBe(titles[winner]);
      expect(etagOf(final)).toBe(etagOf(answers[winner] as ApiResponse));
    }
  });

  it('without If-Match concurrent updates of different properties both apply, as before', async () => {
    const noteId = await createNote('Unconditional');
    for (let round = 0; round < 10; round += 1) {
      const answers = await Promise.all([
        patch(noteId, { title: `Title ${round}` }),
        patch(noteId, { speaker_names: { [`Speaker ${round + 1}`]: `Name ${round}` } }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    }
    const final = await api('GET', `/v1/notes/${noteId}`);
    expect(final.body.title).toBe('Title 9');
    expect(Object.keys(final.body.speaker_names as object)).toHaveLength(10);
  });

  it('an If-Match that is not an entity tag answers 400 with a detail; a weak tag never matches (412)', async () => {
    const noteId = await createNote('Syntax');
    const current = etagOf(await api('GET', `/v1/notes/${noteId}`));
    for (const bad of [current.slice(1, -1), '"unterminated', 'W/', '"a" "b"', ' , ']) {
      const refused = await patch(noteId, { title: 'Never' }, bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.detail).toMatch(/If-Match/);
    }
    const weak = await patch(noteId, { title: 'Never' }, `W/${current}`);
    expect(weak.status).toBe(412);
    const after = await api('GET', `/v1/notes/${noteId}`);
    expect(after.body.title).toBe('Syntax');
    expect(etagOf(after)).toBe(current);
  });

  it("another account's note answers 404 whatever the If-Match, and is not changed", async () => {
    const other = await createAccount(service, 'etag-other');
    const otherApi = client(service.baseUrl, other.api_key);
    const noteId = await createNote('Not yours', otherApi);
    const theirs = etagOf(await otherApi('GET', `/v1/notes/${noteId}`));
    for (const ifMatch of [theirs, '"stale"', '*']) {
      const answer = await patch(noteId, { title: 'Taken over' }, ifMatch);
      expect(answer.status, ifMatch).toBe(404);
    }
    const unchanged = await otherApi('GET', `/v1/notes/${noteId}`);
    expect(unchanged.body.title).toBe('Not yours');
    expect(etagOf(unchanged)).toBe(theirs);
  });

  it('getNote answers 304 without a body when If-None-Match names the current ETag, and 200 once it changed', async () => {
    const noteId = await createNote('Cached');
    const etag = etagOf(await api('GET', `/v1/notes/${noteId}`));
    const notModified = await api('GET', `/v1/notes/${noteId}`, {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    expect(notModified.headers.get('etag')).toBe(etag);

    await patch(noteId, { title: 'Cached, renamed' });
    const changed = await api('GET', `/v1/notes/${noteId}`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.body.title).toBe('Cached, renamed');
  });
});

describe('ETags of transcripts', () => {
  const path = () => `/v1/notes/${transcribedNoteId}/transcription`;

  /** The transcript in one format, as text (exports are not JSON), checked against the contract. */
  async function transcript(format: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${service.baseUrl}${path()}?format=${format}`, {
      headers: { authorization: `Bearer ${service.apiKey}`, ...headers },
    });
    const text = await response.text();
    const observed = {
      method: 'GET',
      path: `${path()}?format=${format}`,
      status: response.status,
      headers: response.headers,
      text,
    };
    assertMatchesContract(observed);
    return observed;
  }

  it('each format has its own ETag, and a speaker rename changes them', async () => {
    const formats = ['json', 'srt', 'vtt', 'md'];
    const before = await Promise.all(formats.map((format) => transcript(format)));
    const tags = before.map((response) => etagOf(response));
    expect(new Set(tags).size).toBe(formats.length);
    expect(etagOf(await transcript('srt'))).toBe(tags[1]);

    const { conversation_segments } = JSON.parse(before[0]?.text ?? '{}') as {
      conversation_segments: { speaker: string }[];
    };
    const speaker = conversation_segments[0]?.speaker as string;
    expect((await patch(transcribedNoteId, { speaker_names: { [speaker]: 'Grace' } })).status).toBe(200);
    const after = await Promise.all(formats.map((format) => transcript(format)));
    after.forEach((response, i) => {
      expect(etagOf(response), formats[i]).not.toBe(tags[i]);
    });
  });

  it('getTranscription answers 304 when If-None-Match names the current ETag of that format only', async () => {
    const json = etagOf(await api('GET', path()));
    const notModified = await api('GET', path(), { headers: { 'if-none-match': json } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(json);
    const srt = await transcript('srt', { 'if-none-match': json });
    expect(srt.status).toBe(200);
  });

  it('a malformed If-None-Match answers 400 with a detail', async () => {
    const answer = await api('GET', path(), { headers: { 'if-none-match': 'no-quotes' } });
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/If-None-Match/);
  });
});

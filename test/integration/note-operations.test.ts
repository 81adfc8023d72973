import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, revokeKey } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { findEverywhere } from '../support/storage.ts';
import { pollUntilDone, submitAndUpload, transcribedNote } from '../support/transcribe.ts';

let service: RunningService;
let api: Api;
let transcribedNoteId: string;

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  transcribedNoteId = await transcribedNote(api, 'Transcribed');
});
afterAll(() => service?.stop());

async function createNote(title: string): Promise<string> {
  const noteId = randomUUID();
  const response = await api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 100 },
  });
  expect(response.status).toBe(202);
  return noteId;
}

describe('getCurrentAccount', () => {
  it('returns the account and key ID the API key belongs to', async () => {
    const response = await api('GET', '/v1/account');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'local',
      api_key: {
        key_id: expect.stringMatching(/^key_/),
        created_at: expect.any(Number),
        scopes: ['notes:read', 'notes:write', 'notes:process', 'notes:delete'],
      },
    });
    expect(response.body.account_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(response.body)).not.toContain('svc_sk_');
  });

  it('answers 401 from the very next request for a key revoked with key:revoke while the service runs (it had checked the key), with the same message as for a key that never existed', async () => {
    const other = await createAccount(service, 'to-revoke');
    const otherApi = client(service.baseUrl, other.api_key);
    const account = await otherApi('GET', '/v1/account');
    expect(account.status).toBe(200);
    const keyId = (account.body.api_key as { key_id: string }).key_id;
    await revokeKey(service, other.account_id, keyId);
    const revoked = await otherApi('GET', '/v1/account');
    const unknown = await api('GET', '/v1/account', { key: `svc_sk_${'A'.repeat(43)}` });
    expect(revoked.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(revoked.body).toEqual(unknown.body);
    expect(revoked.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));
  });
});

describe('listNotes', () => {
  it('lists newest first, pages with a cursor, and visits every note once', async () => {
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three', 'four', 'five']) {
      ids.push(await createNote(title));
      await new Promise((done) => setTimeout(done, 5));
    }
    const seen: Array<{ note_id: string; created_at: number }> = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await api('GET', `/v1/notes?limit=2${query}`);
      expect(page.status).toBe(200);
      expect((page.body.notes as unknown[]).length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.notes as typeof seen));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    const listedIds = seen.map((note) => note.note_id);
    expect(new Set(listedIds).size).toBe(listedIds.length);
    for (const id of [...ids, transcribedNoteId]) expect(listedIds).toContain(id);
    const times = seen.map((note) => note.created_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(listedIds.slice(0, 5)).toEqual([...ids].reverse());
  });

  it('shows the transcription status of each note', async () => {
    const page = await api('GET', '/v1/notes?limit=100');
    const notes = page.body.notes as Array<{ note_id: string; transcription_status: string }>;
    expect(notes.find((note) => note.note_id === transcribedNoteId)?.transcription_status).toBe('completed');
  });
});

describe('getNote', () => {
  it('returns the note with its completed transcription', async () => {
    const response = await api('GET', `/v1/notes/${transcribedNoteId}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      note_id: transcribedNoteId,
      title: 'Transcribed',
      state: 'active',
      trashed_at: null,
      transcription_status: 'completed',
      transcription_job: { status: 'completed', stage: 'completed', kind: 'transcription' },
      insights: null,
    });
    expect((response.body.transcription as { full_text: string }).full_text.length).toBeGreaterThan(0);
  });

  it('answers 404 with a detail for a note that does not exist', async () => {
    const response = await api('GET', `/v1/notes/${randomUUID()}`);
    expect(response.status).toBe(404);
    expect(response.body.detail).toMatch(/No note/);
  });
});

describe('updateNote', () => {
  it('renames a note', async () => {
    const noteId = await createNote('Old title');
    const response = await api('PATCH', `/v1/notes/${noteId}`, { body: { title: 'New title' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ note_id: noteId, title: 'New title', state: 'active' });
    expect((await api('GET', `/v1/notes/${noteId}`)).body.title).toBe('New title');
  });

  it('moves a note to the trash and restores it, listing it accordingly', async () => {
    const noteId = await createNote('Trash me');
    const trashed = await api('PATCH', `/v1/notes/${noteId}`, { body: { state: 'trashed' } });
    expect(trashed.status).toBe(200);
    expect(trashed.body.state).toBe('trashed');
    expect(trashed.body.trashed_at).toEqual(expect.any(Number));
    const ids = async (state: string) =>
      ((await api('GET', `/v1/notes?state=${state}&limit=100`)).body.notes as Array<{ note_id: string }>).map(
        (note) => note.note_id,
      );
    expect(await ids('trashed')).toContain(noteId);
    expect(await ids('active')).not.toContain(noteId);

    const resubmit = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'x', content_type: 'audio/wav', size_bytes: 100 },
    });
    expect(resubmit.status).toBe(409);
    expect(resubmit.body.detail).toMatch(/trash/);

    const restored = await api('PATCH', `/v1/notes/${noteId}`, { body: { state: 'active' } });
    expect(restored.body).toMatchObject({ state: 'active', trashed_at: null });
    expect(await ids('active')).toContain(noteId);
    expect(await ids('trashed')).not.toContain(noteId);
  });

  it('answers 404 for a note that does not exist', async () => {
    const response = await api('PATCH', `/v1/notes/${randomUUID()}`, { body: { title: 'x' } });
    expect(response.status).toBe(404);
  });
});

describe('speaker names and transcript exports', () => {
  it('renames speakers through updateNote, shown in the transcript, the note and every export', async () => {
    const renamed = await api('PATCH', `/v1/notes/${transcribedNoteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Alice' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.speaker_names).toEqual({ 'Speaker 1': 'Alice' });
    const transcription = (renamed.body.transcription ?? {}) as {
      conversation_segments: Array<{ speaker: string }>;
    };
    expect(new Set(transcription.conversation_segments.map((segment) => segment.speaker))).toEqual(
      new Set(['Alice']),
    );

    const json = await api('GET', `/v1/notes/${transcribedNoteId}/transcription`);
    expect(String(json.body.timestamped_full_text)).toMatch(/^\[\d{2}:\d{2}:\d{2}\] Alice: /);

    const srt = await fetch(`${service.baseUrl}/v1/notes/${transcribedNoteId}/transcription?format=srt`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect(srt.status).toBe(200);
    expect(srt.headers.get('content-type')).toMatch(/^application\/x-subrip/);
    expect(await srt.text()).toMatch(/^1\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\nAlice: \S/);

    const vtt = await fetch(`${service.baseUrl}/v1/notes/${transcribedNoteId}/transcription`, {
      headers: { authorization: `Bearer ${service.apiKey}`, accept: 'text/vtt' },
    });
    expect(vtt.headers.get('content-type')).toMatch(/^text\/vtt/);
    expect(await vtt.text()).toMatch(/^WEBVTT\n\n.*\n<v Alice>\S/);

    const md = await fetch(`${service.baseUrl}/v1/notes/${transcribedNoteId}/transcription?format=md`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect(await md.text()).toMatch(/^# Transcribed\n\n\*\*Alice\*\* \[00:00:\d{2}\]: /);

    const cleared = await api('PATCH', `/v1/notes/${transcribedNoteId}`, {
      body: { speaker_names: { 'Speaker 1': null } },
    });
    expect(cleared.body.speaker_names).toEqual({});
    const back = await api('GET', `/v1/notes/${transcribedNoteId}/transcription`);
    expect(String(back.body.timestamped_full_text)).toMatch(/^\[\d{2}:\d{2}:\d{2}\] Speaker 1: /);
  });

  it('serves exports as UTF-8 text that is not sniffed, with names escaped for each format', async () => {
    const renamed = await api('PATCH', `/v1/notes/${transcribedNoteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Ann <ann@example.com> & *co*' } },
    });
    expect(renamed.status).toBe(200);
    const exported = async (format: string) => {
      const response = await fetch(
        `${service.baseUrl}/v1/notes/${transcribedNoteId}/transcription?format=${format}`,
        {
          headers: { authorization: `Bearer ${service.apiKey}` },
        },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/; charset=utf-8$/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      return response.text();
    };
    expect(await exported('srt')).toMatch(/\nAnn <ann@example\.com> & \*co\*: \S/);
    expect(await exported('vtt')).toMatch(/\n<v Ann &lt;ann@example\.com&gt; &amp; \*co\*>\S/);
    expect(await exported('md')).toMatch(/\n\*\*Ann \\<ann@example\.com\\> \\& \\\*co\\\*\*\* \[/);
    await api('PATCH', `/v1/notes/${transcribedNoteId}`, { body: { speaker_names: { 'Speaker 1': null } } });
  });

  it('rejects speaker names for keys that are not speaker labels, and unknown formats', async () => {
    const bad = await api('PATCH', `/v1/notes/${transcribedNoteId}`, {
      body: { speaker_names: { bob: 'Bob' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/speaker labels/);
    const format = await api('GET', `/v1/notes/${transcribedNoteId}/transcription?format=docx`);
    expect(format.status).toBe(400);
    expect(format.body.detail).toMatch(/format/);
  });
});

describe('deleteTranscription', () => {
  it('removes the transcript but keeps the note and its audio, which can be transcribed again', async () => {
    const fixture = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, fixture.file, fixture.contentType);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);

    const deleted = await api('DELETE', `/v1/notes/${noteId}/transcription`);
    expect(deleted.status).toBe(204);
    const gone = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toMatch(/no transcription/);
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body).toMatchObject({ transcription_status: 'none', transcription: null });
    expect(note.body.audio).toMatchObject({ uploaded_at: expect.any(Number) });
    const { objects } = await findEverywhere(service, noteId);
    expect(objects.map((key) => key.split('/').pop())).toEqual(['audio']);

    const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'x', content_type: fixture.contentType, size_bytes: 1 },
    });
    expect(again.status).toBe(202);
    expect(again.body.upload).toBeUndefined();
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
  });

  it('answers 404 when the note has no transcription, and cancels one in progress', async () => {
    expect((await api('DELETE', `/v1/notes/${randomUUID()}/transcription`)).status).toBe(404);
    const fixture = await speechFixture('rms', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, fixture.file, fixture.contentType);
    expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).status).toBe(404);
    // The worker, if it had started, stops and keeps nothing: only the recording remains.
    await new Promise((done) => setTimeout(done, 3_000));
    expect((await findEverywhere(service, noteId)).objects.map((key) => key.split('/').pop())).toEqual([
      'audio',
    ]);
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).status).toBe(404);
  });
});

describe('deleteNote', () => {
  it('permanently deletes a note, leaving nothing of it in the table or the bucket', async () => {
    const fixture = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, fixture.file, fixture.contentType);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
    const before = await findEverywhere(service, noteId);
    expect(before.items.length).toBeGreaterThanOrEqual(2);
    // The audio, the transcript and the voices the diarizer kept beside it.
    expect(before.objects.length).toBe(3);

    const deleted = await api('DELETE', `/v1/notes/${noteId}`);
    expect(deleted.status).toBe(204);
    expect((await api('GET', `/v1/notes/${noteId}`)).status).toBe(404);
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).status).toBe(404);
    expect(await findEverywhere(service, noteId)).toEqual({ items: [], objects: [] });
    expect((await api('DELETE', `/v1/notes/${noteId}`)).status).toBe(404);
  });
});

describe('the local runtime', () => {
  it('keeps notes across a restart with the same data directory', async () => {
    const noteId = await createNote('Survives restart');
    await service.restart();
    api = client(service.baseUrl, service.apiKey);
    const response = await api('GET', `/v1/notes/${noteId}`);
    expect(response.status).toBe(200);
    expect(response.body.title).toBe('Survives restart');
    expect((await api('GET', `/v1/notes/${transcribedNoteId}/transcription`)).status).toBe(200);
  });

  it('serves the contract at /openapi.yaml', async () => {
    const response = await fetch(`${service.baseUrl}/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/operationId: submitTranscription/);
  });
});

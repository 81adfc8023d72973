import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_WORDS } from '../../src/domain/stop-words.ts';
import { ensureAskFixtures } from '../fixtures/ask/generate.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * searchNotes over real HTTP against the local runtime (a child process, as `npm start`), on notes
 * transcribed by the real pipeline from spoken fixtures (flite voices -> pocketsphinx).
 */
interface Highlight {
  start: number;
  end: number;
}
interface SearchBody {
  results: {
    note: { note_id: string; title: string; state: string; created_at: number };
    score: number;
    title_highlights: Highlight[];
    segments: {
      start_ms: number;
      end_ms: number;
      speaker: string;
      snippet: string;
      highlights: Highlight[];
    }[];
  }[];
  next_cursor: string | null;
}
interface Segment {
  start_ms: number;
  end_ms: number;
  text: string;
}

let service: RunningService;
let api: Api;
let stranger: Api;
const ids = new Map<string, string>();
const segments = new Map<string, Segment[]>();
let strangerNote = '';

async function transcribed(
  owner: Api,
  audio: string,
  title: string,
): Promise<{ id: string; segments: Segment[] }> {
  const id = randomUUID();
  await submitAndUpload(owner, id, audio, 'audio/wav', title);
  const { final } = await pollUntilDone(owner, `/v1/notes/${id}/transcription`);
  expect(final.status).toBe(200);
  return { id, segments: final.body.conversation_segments as Segment[] };
}

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  stranger = client(service.baseUrl, (await createAccount(service, 'Stranger')).api_key);
  const { notes } = await ensureAskFixtures();
  for (const note of notes) {
    const done = await transcribed(api, note.audio, note.title);
    ids.set(note.name, done.id);
    segments.set(note.name, done.segments);
  }
  const garden = notes.find((note) => note.name === 'garden');
  strangerNote = (await transcribed(stranger, garden?.audio ?? '', 'Stranger garden')).id;
}, 400_000);
afterAll(() => service?.stop());

const search = (query: Record<string, string>, owner: Api = api) =>
  owner<SearchBody>('GET', `/v1/search?${new URLSearchParams(query)}`);
const idOf = (name: string) => ids.get(name) ?? '';
const found = (body: SearchBody) => body.results.map((result) => result.note.note_id);

/** Two adjacent words of the note's longest segment that the index keeps, as the recogniser heard them. */
function spokenPhrase(name: string): { phrase: string; segment: Segment } {
  const segment = [...(segments.get(name) ?? [])].sort((a, b) => b.text.length - a.text.length)[0];
  const words = (segment?.text ?? '').split(/\s+/);
  const kept = (word: string) => word.length > 2 && !STOP_WORDS.has(word.toLowerCase());
  const at = words.findIndex((word, i) => kept(word) && kept(words[i + 1] ?? ''));
  expect(at, segment?.text).toBeGreaterThanOrEqual(0);
  return { phrase: words.slice(at, at + 2).join(' '), segment: segment as Segment };
}

describe('searchNotes over HTTP on the local runtime', () => {
  it('finds a note by a phrase spoken in its recording, with that segment first and the phrase highlighted', async () => {
    for (const name of ['holiday', 'budget', 'doctor']) {
      const { phrase, segment } = spokenPhrase(name);
      const response = await search({ q: `"${phrase}"` });
      expect(response.status).toBe(200);
      const [first] = response.body.results;
      expect(first?.note.note_id, phrase).toBe(idOf(name));
      expect(first?.note.state).toBe('active');
      const best = first?.segments[0];
      expect(best?.start_ms).toBe(segment.start_ms);
      expect(best?.end_ms).toBe(segment.end_ms);
      expect(best?.speaker).toMatch(/\S/);
      const marked = (best?.highlights ?? []).map(({ start, end }) => best?.snippet.slice(start, end));
      expect(marked.map((text) => text?.toLowerCase())).toContain(phrase.toLowerCase());
    }
  });

  it('ranks by the same stemmed words as Ask and highlights matches in the title', async () => {
    const response = await search({ q: 'budgets reviewing' });
    expect(found(response.body)[0]).toBe(idOf('budget'));
    const [first] = response.body.results;
    const title = first?.note.title ?? '';
    expect(first?.title_highlights.map(({ start, end }) => title.slice(start, end))).toEqual([
      'Budget',
      'review',
    ]);
    expect(first?.score).toBeGreaterThan(0);
  });

  it('requires quoted words to stand next to each other', async () => {
    const text = (segments.get('holiday') ?? []).map((segment) => segment.text).join(' ');
    const words = text.split(/\s+/).filter((word) => word.length > 4);
    const [a, b] = [words[0] ?? '', words.at(-1) ?? ''];
    expect(found((await search({ q: `${a} ${b}` })).body)).toContain(idOf('holiday'));
    expect(found((await search({ q: `"${b} ${a}"` })).body)).not.toContain(idOf('holiday'));
  });

  it('pages through results with a cursor, each note once, best first', async () => {
    const q = 'garden budget hiring holiday doctor';
    const all = await search({ q, limit: '10' });
    expect(all.body.results).toHaveLength(5);
    expect(all.body.next_cursor).toBeNull();
    const paged: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof search>> = await search({
        q,
        limit: '2',
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      expect(page.body.results.length).toBeLessThanOrEqual(2);
      paged.push(...found(page.body));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(paged).toEqual(found(all.body));
  });

  it('leaves trashed notes out unless asked, and Ask never cites them', async () => {
    const id = idOf('hiring');
    expect((await api('PATCH', `/v1/notes/${id}`, { body: { state: 'trashed' } })).status).toBe(200);
    try {
      expect(found((await search({ q: 'interviews recruiter' })).body)).not.toContain(id);
      const withTrash = await search({ q: 'interviews recruiter', include_trashed: 'true' });
      expect(found(withTrash.body)[0]).toBe(id);
      expect(withTrash.body.results[0]?.note.state).toBe('trashed');
      const asked = await api<{ note_ids: string[] }>('POST', '/v1/ask', {
        body: { question: 'When do the interviews with the recruiter start?' },
      });
      expect(asked.status).toBe(200);
      expect(asked.body.note_ids).not.toContain(id);
    } finally {
      expect((await api('PATCH', `/v1/notes/${id}`, { body: { state: 'active' } })).status).toBe(200);
    }
    expect(found((await search({ q: 'interviews recruiter' })).body)[0]).toBe(id);
  });

  it('finds a renamed note by its new title', async () => {
    const id = idOf('doctor');
    await api('PATCH', `/v1/notes/${id}`, { body: { title: 'Checkup with Dr Zanzibar' } });
    expect(found((await search({ q: 'zanzibar' })).body)).toEqual([id]);
  });

  it("never finds another account's notes, and refuses another account's cursor", async () => {
    const mine = await search({ q: 'tomatoes compost seeds roses garden' });
    expect(found(mine.body)).toContain(idOf('garden'));
    expect(found(mine.body)).not.toContain(strangerNote);
    const theirs = await search({ q: 'tomatoes compost seeds roses garden' }, stranger);
    expect(found(theirs.body)).toEqual([strangerNote]);
    expect(found((await search({ q: 'marketing budget' }, stranger)).body)).toEqual([]);

    const page = await search({ q: 'garden budget hiring holiday doctor', limit: '1' });
    const cursor = page.body.next_cursor ?? '';
    expect(cursor).not.toBe('');
    const stolen = await search({ q: 'garden budget hiring holiday doctor', limit: '1', cursor }, stranger);
    expect(stolen.status).toBe(400);
    expect(String((stolen.body as unknown as { detail: string }).detail)).toMatch(/cursor/);
    const otherQuery = await search({ q: 'garden', limit: '1', cursor });
    expect(otherQuery.status).toBe(400);
  });

  it('answers bad input with 400 and a detail', async () => {
    const cases: Record<string, string>[] = [
      { q: '' },
      { q: '   ' },
      { q: 'x'.repeat(501) },
      { q: 'the and of' },
      { q: 'garden', limit: '0' },
      { q: 'garden', limit: '51' },
      { q: 'garden', limit: 'ten' },
      { q: 'garden', cursor: 'not-a-cursor' },
      { q: 'garden', cursor: Buffer.from('{"k":"x","s":"high","n":1}').toString('base64url') },
      { q: 'garden', include_trashed: 'yes' },
      { q: 'garden', collection_id: 'not-a-uuid' },
    ];
    for (const query of cases) {
      const response = await search(query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect((response.body as unknown as { detail: string }).detail).toMatch(/\S/);
    }
    const missingQ = await api('GET', '/v1/search');
    expect(missingQ.status).toBe(400);
    const noCollection = await search({ q: 'garden', collection_id: randomUUID() });
    expect(noCollection.status).toBe(404);
  });

  it('searches one collection when asked', async () => {
    const created = await api<{ collection_id: string }>('POST', '/v1/collections', {
      body: { name: 'Home' },
    });
    const collection = created.body.collection_id;
    for (const name of ['garden', 'holiday']) {
      await api('POST', `/v1/collections/${collection}/notes`, { body: { note_id: idOf(name) } });
    }
    const response = await search({ q: 'garden budget hiring holiday doctor', collection_id: collection });
    expect(found(response.body).sort()).toEqual([idOf('garden'), idOf('holiday')].sort());
  });

  it('never finds a deleted note, and keeps queries out of the logs', async () => {
    const id = idOf('budget');
    expect((await api('DELETE', `/v1/notes/${id}`)).status).toBe(204);
    expect(found((await search({ q: 'marketing budget', include_trashed: 'true' })).body)).not.toContain(id);
    expect(service.output()).not.toMatch(/marketing budget|marketing\+budget|interviews recruiter/);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncNoteIndex } from '../../src/domain/note-index.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { getServices } from '../../src/wiring/services.ts';
import { ensureAskFixtures } from '../fixtures/ask/generate.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * Collections over real HTTP on the local runtime: created, renamed, notes filed in several at once,
 * listNotes and Ask scoped to one, deleted while the notes stay; another account sees none of it.
 * Three notes of the Ask fixture set (flite recordings transcribed by the real pipeline) are used.
 */
let service: InProcessService;
let api: Api;
let other: Api;
const ids = new Map<string, string>();
const idOf = (name: string) => ids.get(name) ?? '';

interface CollectionBody {
  collection_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}
interface NoteCollectionsBody {
  note_id: string;
  collections: { collection_id: string; name: string }[];
}
interface AskBody {
  answer: string;
  note_ids: string[];
  citations: { note_id: string }[];
}

beforeAll(async () => {
  service = await startInProcess();
  ({ api } = service);
  other = await service.otherAccount('collections-other');
  const fixtures = await ensureAskFixtures();
  for (const note of fixtures.notes.filter((n) => ['garden', 'budget', 'hiring'].includes(n.name))) {
    const id = randomUUID();
    ids.set(note.name, id);
    await submitAndUpload(api, id, note.audio, 'audio/wav', note.title);
  }
  for (const id of ids.values()) {
    const { final } = await pollUntilDone(api, `/v1/notes/${id}/transcription`);
    expect(final.status).toBe(200);
  }
}, 300_000);
afterAll(() => service?.stop());

async function create(name: string, client: Api = api): Promise<CollectionBody> {
  const response = await client<CollectionBody>('POST', '/v1/collections', { body: { name } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function file(collectionId: string, noteId: string, client: Api = api) {
  return client<NoteCollectionsBody>('POST', `/v1/collections/${collectionId}/notes`, {
    body: { note_id: noteId },
  });
}

async function noteIdsIn(collectionId: string, query = ''): Promise<string[]> {
  const response = await api('GET', `/v1/notes?collection_id=${collectionId}${query}`);
  expect(response.status).toBe(200);
  return (response.body.notes as { note_id: string }[]).map((note) => note.note_id);
}

const ask = (body: unknown, client: Api = api) => client<AskBody>('POST', '/v1/ask', { body });

describe('collections over HTTP', () => {
  it('creates, lists by name and renames a collection, and refuses a name another collection has', async () => {
    const zebra = await create('Zebra projects');
    const alpha = await create('  alpha ideas  ');
    expect(alpha.name).toBe('alpha ideas');
    const listed = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    const names = listed.body.collections.map((c) => c.name);
    expect(names.indexOf('alpha ideas')).toBeLessThan(names.indexOf('Zebra projects'));

    const clash = await api('POST', '/v1/collections', { body: { name: 'ZEBRA Projects' } });
    expect(clash.status).toBe(409);
    expect(clash.body.detail).toContain(zebra.collection_id);
    const renameClash = await api('PATCH', `/v1/collections/${alpha.collection_id}`, {
      body: { name: 'zebra projects' },
    });
    expect(renameClash.status).toBe(409);

    const renamed = await api<CollectionBody>('PATCH', `/v1/collections/${zebra.collection_id}`, {
      body: { name: 'Zebra programme' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ collection_id: zebra.collection_id, name: 'Zebra programme' });
    // The old name is free again; a case-only rename keeps the collection's own name.
    expect((await create('zebra projects')).name).toBe('zebra projects');
    const recased = await api('PATCH', `/v1/collections/${zebra.collection_id}`, {
      body: { name: 'ZEBRA PROGRAMME' },
    });
    expect(recased.status).toBe(200);
    const after = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(after.body.collections.filter((c) => c.name.toLowerCase().startsWith('zebra'))).toHaveLength(2);
  });

  it('files a note in several collections, shows them on the note and filters listNotes by collection', async () => {
    const home = await create('Home');
    const work = await create('Work');
    expect((await file(home.collection_id, idOf('garden'))).status).toBe(200);
    expect((await file(work.collection_id, idOf('budget'))).status).toBe(200);
    expect((await file(work.collection_id, idOf('hiring'))).status).toBe(200);
    const both = await file(work.collection_id, idOf('garden'));
    expect(both.body.collections.map((c) => c.name)).toEqual(['Home', 'Work']);
    // Filing again changes nothing.
    const again = await file(work.collection_id, idOf('garden'));
    expect(again.status).toBe(200);
    expect(again.body.collections).toHaveLength(2);

    const note = await api('GET', `/v1/notes/${idOf('garden')}`);
    expect(note.body.collections).toEqual([
      { collection_id: home.collection_id, name: 'Home' },
      { collection_id: work.collection_id, name: 'Work' },
    ]);
    expect(await noteIdsIn(home.collection_id)).toEqual([idOf('garden')]);
    expect((await noteIdsIn(work.collection_id)).sort()).toEqual(
      [idOf('garden'), idOf('budget'), idOf('hiring')].sort(),
    );

    // Pages of one, newest first, each note once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await api('GET', `/v1/notes?collection_id=${work.collection_id}&limit=1${query}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.notes as { note_id: string }[]).map((n) => n.note_id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(await noteIdsIn(work.collection_id));

    const removed = await api<NoteCollectionsBody>(
      'DELETE',
      `/v1/collections/${work.collection_id}/notes/${idOf('garden')}`,
    );
    expect(removed.status).toBe(200);
    expect(removed.body.collections.map((c) => c.name)).toEqual(['Home']);
    expect(await noteIdsIn(work.collection_id)).not.toContain(idOf('garden'));
  });

  it('lists a trashed note of a collection only with state=trashed', async () => {
    const noteId = randomUUID();
    const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'To trash', content_type: 'audio/wav', size_bytes: 100 },
    });
    expect(submitted.status).toBe(202);
    const bin = await create('Bin');
    await file(bin.collection_id, noteId);
    await api('PATCH', `/v1/notes/${noteId}`, { body: { state: 'trashed' } });
    expect(await noteIdsIn(bin.collection_id)).toEqual([]);
    expect(await noteIdsIn(bin.collection_id, '&state=trashed')).toEqual([noteId]);
    // Deleting the note takes it out of its collections.
    expect((await api('DELETE', `/v1/notes/${noteId}`)).status).toBe(204);
    expect(await noteIdsIn(bin.collection_id, '&state=trashed')).toEqual([]);
  });

  it('answers a question scoped to a collection only from the notes in it', async () => {
    const garden = await create('Garden only');
    const office = await create('Office');
    await file(garden.collection_id, idOf('garden'));
    await file(office.collection_id, idOf('budget'));
    await file(office.collection_id, idOf('hiring'));

    const unscoped = await ask({ question: 'How big is the marketing budget?' });
    expect(unscoped.body.note_ids[0]).toBe(idOf('budget'));
    const inGarden = await ask({
      question: 'How big is the marketing budget?',
      collection_id: garden.collection_id,
    });
    expect(inGarden.status).toBe(200);
    expect(inGarden.body.note_ids.every((id) => id === idOf('garden'))).toBe(true);

    const planting = await ask({
      question: 'What are we going to plant in the garden this spring?',
      collection_id: garden.collection_id,
    });
    expect(planting.body.note_ids).toEqual([idOf('garden')]);
    const plantingAtOffice = await ask({
      question: 'What are we going to plant in the garden this spring?',
      collection_id: office.collection_id,
    });
    expect(plantingAtOffice.body.note_ids).not.toContain(idOf('garden'));
    for (const citation of plantingAtOffice.body.citations)
      expect([idOf('budget'), idOf('hiring')]).toContain(citation.note_id);

    // With note_ids too, the scope is the listed notes that are in the collection.
    const narrowed = await ask({
      question: 'How many engineers do we need to hire?',
      collection_id: office.collection_id,
      note_ids: [idOf('budget'), idOf('garden')],
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.note_ids.every((id) => id === idOf('budget'))).toBe(true);
    const disjoint = await ask({
      question: 'How big is the marketing budget?',
      collection_id: garden.collection_id,
      note_ids: [idOf('budget')],
    });
    expect(disjoint.status).toBe(400);
    expect((disjoint.body as unknown as { detail: string }).detail).toMatch(/collection/);
    const empty = await create('Empty');
    const none = await ask({ question: 'Anything?', collection_id: empty.collection_id });
    expect(none.status).toBe(400);
  });

  it('deletes a collection and keeps its notes, in Ask too', async () => {
    const doomed = await create('Doomed');
    await file(doomed.collection_id, idOf('budget'));
    const deleted = await api('DELETE', `/v1/collections/${doomed.collection_id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();

    const note = await api('GET', `/v1/notes/${idOf('budget')}`);
    expect(note.status).toBe(200);
    expect(note.body.state).toBe('active');
    expect((note.body.collections as { name: string }[]).map((c) => c.name)).not.toContain('Doomed');
    const answer = await ask({ question: 'How big is the marketing budget?' });
    expect(answer.body.note_ids[0]).toBe(idOf('budget'));

    expect((await api('GET', `/v1/notes?collection_id=${doomed.collection_id}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/collections/${doomed.collection_id}`)).status).toBe(404);
    const listed = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(listed.body.collections.map((c) => c.collection_id)).not.toContain(doomed.collection_id);
    // The name is free again.
    expect((await create('Doomed')).name).toBe('Doomed');
  });
});

describe('collections are isolated between accounts', () => {
  it("answers 404 on every collection operation for another account's collection and note", async () => {
    const mine = await create('Mine');
    await file(mine.collection_id, idOf('garden'));
    const theirs = await create('Theirs', other);
    const path = `/v1/collections/${mine.collection_id}`;
    const attempts = [
      await other('PATCH', path, { body: { name: 'Taken over' } }),
      await other('DELETE', path),
      await other('POST', `${path}/notes`, { body: { note_id: idOf('garden') } }),
      await other('DELETE', `${path}/notes/${idOf('garden')}`),
      await other('GET', `/v1/notes?collection_id=${mine.collection_id}`),
      await other('POST', '/v1/ask', {
        body: { question: 'What do we plant?', collection_id: mine.collection_id },
      }),
      // Their own collection, my note.
      await other('POST', `/v1/collections/${theirs.collection_id}/notes`, {
        body: { note_id: idOf('garden') },
      }),
      await other('DELETE', `/v1/collections/${theirs.collection_id}/notes/${idOf('garden')}`),
    ];
    for (const attempt of attempts) {
      expect(attempt.status, JSON.stringify(attempt.body)).toBe(404);
      expect(typeof attempt.body.detail).toBe('string');
    }
    const theirList = await other<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(theirList.body.collections.map((c) => c.name)).toEqual(['Theirs']);
    // Names are unique per account only.
    expect((await create('Mine', other)).name).toBe('Mine');
    // Nothing of mine changed.
    const still = await api('GET', `/v1/notes/${idOf('garden')}`);
    expect((still.body.collections as { name: string }[]).map((c) => c.name)).toContain('Mine');
    expect(await noteIdsIn(mine.collection_id)).toEqual([idOf('garden')]);
  });
});

describe('bad input on the collection operations', () => {
  it('answers 400 with a detail and writes nothing', async () => {
    const target = await create('Target');
    const before = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    const bad = [
      await api('POST', '/v1/collections', { body: { name: '' } }),
      await api('POST', '/v1/collections', { body: { name: '   ' } }),
      await api('POST', '/v1/collections', { body: { name: 'x'.repeat(101) } }),
      await api('POST', '/v1/collections', { body: { name: 'two\nlines' } }),
      await api('POST', '/v1/collections', { body: { name: 'ok', colour: 'red' } }),
      await api('POST', '/v1/collections', { body: {} }),
      await api('POST', '/v1/collections', {
        rawBody: '{"name":',
        headers: { 'content-type': 'application/json' },
      }),
      await api('PATCH', '/v1/collections/not-a-uuid', { body: { name: 'x' } }),
      await api('PATCH', `/v1/collections/${target.collection_id}`, { body: { name: 7 } }),
      await api('DELETE', '/v1/collections/not-a-uuid'),
      await api('POST', `/v1/collections/${target.collection_id}/notes`, { body: {} }),
      await api('POST', `/v1/collections/${target.collection_id}/notes`, { body: { note_id: 'nope' } }),
      await api('DELETE', `/v1/collections/${target.collection_id}/notes/nope`),
      await api('GET', '/v1/notes?collection_id=nope'),
      await api('POST', '/v1/ask', { body: { question: 'Why?', collection_id: 'nope' } }),
    ];
    for (const response of bad) {
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(typeof response.body.detail).toBe('string');
    }
    const after = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(after.body.collections).toEqual(before.body.collections);
    expect((await api('POST', '/v1/collections', { rawBody: 'name=x' })).status).toBe(415);
    const missing = randomUUID();
    expect((await file(missing, idOf('garden'))).status).toBe(404);
    expect((await file(target.collection_id, randomUUID())).status).toBe(404);
    expect(await noteIdsIn(target.collection_id)).toEqual([]);
  });

  it('refuses a note in more than 20 collections and an account with more than 100, with 409', async () => {
    const crowded = randomUUID();
    const limits = await service.otherAccount('collections-limits');
    const submitted = await limits('POST', `/v1/notes/${crowded}/transcription`, {
      body: { title: 'Crowded', content_type: 'audio/wav', size_bytes: 100 },
    });
    expect(submitted.status).toBe(202);
    const created: CollectionBody[] = [];
    for (let i = 1; i <= 100; i++) created.push(await create(`Limit ${i}`, limits));
    const tooMany = await limits('POST', '/v1/collections', { body: { name: 'One more' } });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.detail).toMatch(/100/);
    const listed = await limits<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(listed.body.collections).toHaveLength(100);

    for (const collection of created.slice(0, 20))
      expect((await file(collection.collection_id, crowded, limits)).status).toBe(200);
    const twentyFirst = await file(created[20]?.collection_id ?? '', crowded, limits);
    expect(twentyFirst.status).toBe(409);
    expect((twentyFirst.body as unknown as { detail: string }).detail).toMatch(/20/);
    const note = await limits('GET', `/v1/notes/${crowded}`);
    expect(note.body.collections).toHaveLength(20);
  }, 120_000);
});

describe('Ask scoped to a collection of more than 100 notes', () => {
  /**
   * 110 more processed notes, each a copy of the budget note's transcript: recognising 110 recordings
   * would take minutes, so the copies are written through the runtime's own stores (this process runs
   * it), exactly as the transcription worker leaves a note: a completed job, the transcript, the index.
   */
  async function processedCopies(count: number): Promise<string[]> {
    const services = getServices();
    const accountId = String((await api('GET', '/v1/account')).body.account_id);
    const source = idOf('budget');
    const [job, transcript] = await Promise.all([
      services.notes.getJob(accountId, source, 'transcription'),
      services.blobs.getJson(objectKeys.transcription(accountId, source)),
    ]);
    expect(job?.status).toBe('completed');
    const copies: string[] = [];
    for (let i = 0; i < count; i++) {
      const noteId = randomUUID();
      const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
        body: { title: `Budget copy ${i}`, content_type: 'audio/wav', size_bytes: 100 },
      });
      expect(submitted.status).toBe(202);
      const waiting = await services.notes.getJob(accountId, noteId, 'transcription');
      if (!job || !waiting) throw new Error('jobs missing');
      await services.blobs.putJson(objectKeys.transcription(accountId, noteId), transcript);
      expect(
        await services.notes.replaceJob(waiting, { ...job, note_id: noteId, updated_at: Date.now() }),
      ).toBe(true);
      await syncNoteIndex(services, accountId, noteId);
      copies.push(noteId);
    }
    return copies;
  }

  it('answers only from the collection, and finds the notes in it, beyond the 100 scored one by one', async () => {
    const copies = await processedCopies(110);
    const large = await create('Large');
    for (const noteId of [...copies, idOf('hiring')])
      expect((await file(large.collection_id, noteId)).status).toBe(200);

    const hiring = await ask({
      question: 'How many engineers do we need to hire?',
      collection_id: large.collection_id,
    });
    expect(hiring.status).toBe(200);
    expect(hiring.body.note_ids[0]).toBe(idOf('hiring'));
    const budget = await ask({
      question: 'How big is the marketing budget?',
      collection_id: large.collection_id,
    });
    expect(budget.body.note_ids.length).toBeGreaterThan(0);
    expect(budget.body.note_ids.every((id) => copies.includes(id))).toBe(true);
    const planting = await ask({
      question: 'What are we going to plant in the garden this spring?',
      collection_id: large.collection_id,
    });
    expect(planting.body.note_ids).not.toContain(idOf('garden'));
    // Outside the collection the garden note is still the answer.
    const everywhere = await ask({ question: 'What are we going to plant in the garden this spring?' });
    expect(everywhere.body.note_ids[0]).toBe(idOf('garden'));
  }, 180_000);
});

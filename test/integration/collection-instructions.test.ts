import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';
import { pollUntilDone } from '../support/transcribe.ts';

/**
 * Instructions per collection over real HTTP on the local runtime, whose text engine is the local
 * extractive one: stored with the collection, changed and cleared, their limits; the extractive
 * engine saying plainly that it cannot follow them, its content unchanged; results reading as
 * outdated once the instructions change. (The LLM engines: collection-instructions-reach-the-llm.)
 */
let service: InProcessService;
let api: Api;
let accountId = '';

interface CollectionBody {
  collection_id: string;
  name: string;
  instructions: string | null;
  created_at: number;
  updated_at: number;
}
type Result = Record<string, unknown> & {
  outdated: boolean;
  outdated_reasons: string[];
  collection_instructions: {
    followed: boolean;
    collections: { collection_id: string; name: string }[];
  } | null;
};

const TEXT =
  'The budget review moved to Thursday. Alice will send the revised budget to the finance team before the review. ' +
  'Bob asked whether the marketing plan needs a second review. We agreed to ship the release on Friday. ' +
  'Who will tell the support team about the release date?';

beforeAll(async () => {
  service = await startInProcess({ workersInProcess: true });
  ({ api } = service);
  accountId = String((await api('GET', '/v1/account')).body.account_id);
});
afterAll(() => service?.stop());

async function create(body: Record<string, unknown>): Promise<CollectionBody> {
  const response = await api<CollectionBody>('POST', '/v1/collections', { body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function update(collectionId: string, body: Record<string, unknown>) {
  // A refusal's body is the error, `detail`.
  return api<CollectionBody & { detail?: string }>('PATCH', `/v1/collections/${collectionId}`, { body });
}

async function transcribedNote(title: string): Promise<string> {
  const id = randomUUID();
  await storeTranscribedNote(getServices(), accountId, { id, title, text: TEXT });
  return id;
}

async function file(collectionId: string, noteId: string) {
  const filed = await api('POST', `/v1/collections/${collectionId}/notes`, { body: { note_id: noteId } });
  expect(filed.status, JSON.stringify(filed.body)).toBe(200);
}

async function generated(noteId: string, path: 'insights' | 'artifacts/epiphany'): Promise<Result> {
  const url = `/v1/notes/${noteId}/${path}`;
  const body = path === 'insights' ? {} : { regenerate: true };
  const accepted = await api('POST', url, { body });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const { final } = await pollUntilDone(api, url, { intervalMs: 200 });
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return final.body as Result;
}

async function read(noteId: string, path: 'insights' | 'artifacts/epiphany'): Promise<Result> {
  const response = await api('GET', `/v1/notes/${noteId}/${path}`);
  expect(response.status).toBe(200);
  return response.body as Result;
}

/** What the engine made: the result less when it was made and what is said about it. */
function content(result: Result): Record<string, unknown> {
  const {
    generated_at: _at,
    outdated: _outdated,
    outdated_reasons: _reasons,
    collection_instructions: _instructions,
    ...made
  } = result;
  return made;
}

describe('instructions per collection over HTTP', () => {
  it('stores instructions with the collection, trimmed and with line breaks as LF, and null when there are none', async () => {
    const recipes = await create({
      name: 'Recipes',
      instructions: '  Ingredients first,\r\nthen the steps in order.\rNo small talk.  ',
    });
    expect(recipes.instructions).toBe('Ingredients first,\nthen the steps in order.\nNo small talk.');
    const plain = await create({ name: 'Plain' });
    expect(plain.instructions).toBeNull();
    const blank = await create({ name: 'Blank', instructions: '   ' });
    expect(blank.instructions).toBeNull();
    expect((await create({ name: 'Nothing', instructions: null })).instructions).toBeNull();

    const listed = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    const byId = new Map(listed.body.collections.map((collection) => [collection.collection_id, collection]));
    expect(byId.get(recipes.collection_id)?.instructions).toBe(recipes.instructions);
    expect(byId.get(plain.collection_id)?.instructions).toBeNull();
  });

  it('changes, keeps and clears the instructions with updateCollection', async () => {
    const { collection_id: id } = await create({ name: 'Study notes' });
    const set = await update(id, { instructions: 'Key terms with their definitions.' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      name: 'Study notes',
      instructions: 'Key terms with their definitions.',
    });

    const renamed = await update(id, { name: 'Study' });
    expect(renamed.body).toMatchObject({ name: 'Study', instructions: 'Key terms with their definitions.' });

    const both = await update(id, { name: 'Studying', instructions: 'Questions to revise with.' });
    expect(both.body).toMatchObject({ name: 'Studying', instructions: 'Questions to revise with.' });

    const cleared = await update(id, { instructions: null });
    expect(cleared.body).toMatchObject({ name: 'Studying', instructions: null });
    await update(id, { instructions: 'Again.' });
    expect((await update(id, { instructions: '' })).body.instructions).toBeNull();
  });

  it('refuses instructions over 1,000 characters or with control characters, and an update of nothing, with 400 and a detail', async () => {
    const { collection_id: id } = await create({ name: 'Limits', instructions: 'Keep this.' });
    const long = await update(id, { instructions: 'x'.repeat(1001) });
    expect(long.status).toBe(400);
    expect(long.body.detail).toBe('body.instructions: must be at most 1000 characters');
    const tab = await update(id, { instructions: 'Owners\tdates' });
    expect(tab.status).toBe(400);
    expect(tab.body.detail).toMatch(
      /instructions: must not contain control characters other than line breaks/,
    );
    const nothing = await update(id, {});
    expect(nothing.status).toBe(400);
    expect(nothing.body.detail).toMatch(/give at least one of name, instructions/);
    const tooLongOnCreate = await api('POST', '/v1/collections', {
      body: { name: 'Too long', instructions: 'x'.repeat(1001) },
    });
    expect(tooLongOnCreate.status).toBe(400);
    expect(tooLongOnCreate.body.detail).toMatch(/instructions: must be at most 1000 characters/);
    // Exactly 1,000 is fine; nothing was changed by the refusals.
    expect((await update(id, { instructions: 'x'.repeat(1000) })).status).toBe(200);
    const listed = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(listed.body.collections.some((collection) => collection.name === 'Too long')).toBe(false);
  });

  it('says plainly that the extractive engine could not follow the instructions, and makes the same content as without them', async () => {
    const noteId = await transcribedNote('Release planning');
    const insightsBefore = await generated(noteId, 'insights');
    const epiphanyBefore = await generated(noteId, 'artifacts/epiphany');
    expect(insightsBefore).toMatchObject({
      outdated: false,
      outdated_reasons: [],
      collection_instructions: null,
    });
    expect(epiphanyBefore.collection_instructions).toBeNull();

    const zeta = await create({ name: 'Zeta project', instructions: 'Action items only.' });
    const alpha = await create({ name: 'alpha team', instructions: 'Stress the dates.' });
    const without = await create({ name: 'Middle' });
    for (const collection of [zeta, alpha, without]) await file(collection.collection_id, noteId);

    // Made before the note had instructions: outdated, for that reason alone.
    expect(await read(noteId, 'insights')).toMatchObject({
      outdated: true,
      outdated_reasons: ['instructions'],
      collection_instructions: null,
    });

    const insightsAfter = await generated(noteId, 'insights');
    const epiphanyAfter = await generated(noteId, 'artifacts/epiphany');
    // In the stated order (by name, as listCollections lists them), the one without instructions left out.
    const refs = [alpha, zeta].map(({ collection_id, name }) => ({ collection_id, name }));
    for (const result of [insightsAfter, epiphanyAfter]) {
      expect(result).toMatchObject({
        outdated: false,
        outdated_reasons: [],
        collection_instructions: { followed: false, collections: refs },
      });
    }
    expect(content(insightsAfter)).toEqual(content(insightsBefore));
    expect(content(epiphanyAfter)).toEqual(content(epiphanyBefore));
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.insights).toEqual(insightsAfter);
  });

  it('makes Insights and artifacts outdated when their collections’ instructions change, not when a collection is renamed', async () => {
    const noteId = await transcribedNote('Support handover');
    const collection = await create({ name: 'Handovers', instructions: 'Who owns what.' });
    await file(collection.collection_id, noteId);
    await generated(noteId, 'insights');
    await generated(noteId, 'artifacts/epiphany');

    await update(collection.collection_id, { name: 'Handover notes' });
    const renamed = await read(noteId, 'insights');
    expect(renamed).toMatchObject({ outdated: false, outdated_reasons: [] });
    expect(renamed.collection_instructions?.collections).toEqual([
      { collection_id: collection.collection_id, name: 'Handover notes' },
    ]);

    await update(collection.collection_id, { instructions: 'Who owns what, by when.' });
    for (const path of ['insights', 'artifacts/epiphany'] as const) {
      expect(await read(noteId, path)).toMatchObject({ outdated: true, outdated_reasons: ['instructions'] });
    }
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.insights).toMatchObject({ outdated: true, outdated_reasons: ['instructions'] });
    // An existing artifact is answered as it is, saying so.
    const existing = await api('POST', `/v1/notes/${noteId}/artifacts/epiphany`, { body: {} });
    expect(existing.status).toBe(200);
    expect(existing.body).toMatchObject({ outdated: true, outdated_reasons: ['instructions'] });

    // Generated again: current. Taking the note out of the collection outdates it once more.
    expect((await generated(noteId, 'insights')).outdated).toBe(false);
    await api('DELETE', `/v1/collections/${collection.collection_id}/notes/${noteId}`);
    expect(await read(noteId, 'insights')).toMatchObject({
      outdated: true,
      outdated_reasons: ['instructions'],
    });
  });

  it('keeps Insights current when the instructions name a speaker label that the note has given a name', async () => {
    const noteId = await transcribedNote('Interview');
    const collection = await create({ name: 'Interviews', instructions: 'Speaker 1 is the interviewer.' });
    await file(collection.collection_id, noteId);
    const named = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Ada' } },
    });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    await generated(noteId, 'insights');
    const shown = await read(noteId, 'insights');
    expect(shown).toMatchObject({ outdated: false, outdated_reasons: [] });
    // The person's instructions are shown as written, not with the speaker's name put in.
    expect(JSON.stringify(shown.collection_instructions)).not.toContain('Ada');
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.insights).toMatchObject({ outdated: false, outdated_reasons: [] });
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoSearchIndex } from '../../src/adapters/dynamodb/search-index.ts';
import { termFrequencies } from '../../src/domain/search-terms.ts';
import type { IndexedDocument } from '../../src/ports/search-index.ts';
import { getServices } from '../../src/wiring/services.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { noteIdsOf, searchPages } from '../support/search-pages.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';

/**
 * A collection of more than 100 notes (too many to score one by one at once) whose notes all rank
 * below notes outside it: 210 notes outside say "budget" three times (more than
 * the 200 candidates a large scope first looks at), 101 inside say it once among
 * many other words. Searching and asking within the collection must still find the notes inside.
 * (From an outside review: both used to keep only the account's best candidates that were inside.)
 */
let service: InProcessService;
const inside = new Set<string>();
let collectionId = '';

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  const accountId = String((await service.api('GET', '/v1/account')).body.account_id);
  const services = getServices();
  const documents: { noteId: string; document: IndexedDocument }[] = [];
  const store = async (noteId: string, title: string, text: string) => {
    await storeTranscribedNote(services, accountId, { id: noteId, title, text });
    documents.push({ noteId, document: termFrequencies(`${title}\n${text}`) });
  };
  for (let i = 0; i < 210; i++) await store(randomUUID(), `Outside ${i}`, 'budget budget budget meeting');
  const filler = 'gardens rivers mountains forests '.repeat(10);
  for (let i = 0; i < 101; i++) {
    const noteId = randomUUID();
    inside.add(noteId);
    await store(noteId, `Inside ${i}`, `the budget was mentioned once among ${filler}`);
  }
  // Loaded in bulk, as a backfill would: adding 311 notes one by one takes far longer.
  await (services.search as DynamoSearchIndex).load(accountId, documents);
  const created = await service.api('POST', '/v1/collections', { body: { name: 'Big' } });
  collectionId = String(created.body.collection_id);
  for (const noteId of inside) {
    const filed = await service.api('POST', `/v1/collections/${collectionId}/notes`, {
      body: { note_id: noteId },
    });
    expect(filed.status).toBe(200);
  }
}, 300_000);
afterAll(() => service?.stop());

describe('a collection whose notes rank below notes outside it', () => {
  it('searchNotes with collection_id pages through the notes inside, and only those', async () => {
    const pages = await searchPages(service.api, { q: 'budget', limit: '40', collection_id: collectionId });
    const found = noteIdsOf(pages);
    // One query pages through at most 100 results (MAX_SEARCH_RESULTS); the collection has 101 matches.
    expect(pages).toHaveLength(3);
    expect(found).toHaveLength(100);
    expect(new Set(found).size).toBe(100);
    expect(found.every((noteId) => inside.has(noteId))).toBe(true);
  });

  it('askWorkspace scoped to the collection answers from the notes inside', async () => {
    const answer = await service.api<{ note_ids: string[]; citations: { note_id: string }[] }>(
      'POST',
      '/v1/ask',
      { body: { question: 'What was said about the budget?', collection_id: collectionId } },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.note_ids.length).toBeGreaterThan(0);
    expect(answer.body.citations.every((citation) => inside.has(citation.note_id))).toBe(true);
    expect(answer.body.note_ids.every((noteId) => inside.has(noteId))).toBe(true);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncNoteIndex } from '../../src/domain/note-index.ts';
import { getServices } from '../../src/wiring/services.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { noteIdsOf, searchPages } from '../support/search-pages.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';

/**
 * A page of search results reads the transcripts of its notes (segments, snippets, phrases). Long
 * notes must not make one page read without bound: a page stops reading at about 100,000 indexed
 * words of transcript and hands the rest to its cursor.
 */
let service: InProcessService;
const ids = [randomUUID(), randomUUID(), randomUUID()];

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  const accountId = String((await service.api('GET', '/v1/account')).body.account_id);
  const services = getServices();
  const vocabulary = 'harbour pilot tide anchor rope deck cargo crane dock vessel'.split(' ');
  for (const [n, id] of ids.entries()) {
    // 60,000 indexed words each: two of them are more than one page may read.
    const text = Array.from({ length: 60_000 }, (_, i) => vocabulary[i % vocabulary.length]).join(' ');
    await storeTranscribedNote(services, accountId, {
      id,
      title: `Port log ${n}`,
      text: `lighthouse ${text}`,
    });
    await syncNoteIndex(services, accountId, id);
  }
}, 300_000);
afterAll(() => service?.stop());

describe('searchNotes over long transcripts', () => {
  it('reads about 100,000 words of transcripts per page at most, and pages through the rest', async () => {
    for (const q of ['lighthouse', '"harbour pilot"']) {
      const pages = await searchPages(service.api, { q, limit: '10' }, 5);
      for (const page of pages) expect(page.results.length).toBe(1);
      const found = noteIdsOf(pages);
      expect(found.sort()).toEqual([...ids].sort());
    }
  });
});

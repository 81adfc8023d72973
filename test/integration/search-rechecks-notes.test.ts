import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncNoteIndex } from '../../src/domain/note-index.ts';
import { getServices } from '../../src/wiring/services.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';

/**
 * searchNotes over HTTP when the index lags behind the notes: the runtime runs in this process, so
 * the test changes a note in the store without the index hearing of it, as a crash between the two
 * writes would leave it. Search must re-check every note it returns.
 */
let service: InProcessService;
let accountId = '';
const ids = { kept: randomUUID(), trashed: randomUUID(), gone: randomUUID(), unprocessed: randomUUID() };

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  accountId = String((await service.api('GET', '/v1/account')).body.account_id);
  const services = getServices();
  for (const [name, id] of Object.entries(ids)) {
    await storeTranscribedNote(services, accountId, {
      id,
      title: `Lighthouse ${name}`,
      text: 'the lighthouse keeper repaired the lantern before the storm',
    });
    await syncNoteIndex(services, accountId, id);
  }
  // Changed behind the index's back.
  await services.notes.updateNote(accountId, ids.trashed, { state: 'trashed' }, Date.now());
  await services.notes.deleteNoteItems(accountId, ids.gone);
  const job = await services.notes.getJob(accountId, ids.unprocessed, 'transcription');
  expect(job && (await services.notes.deleteJob(job))).toBe(true);
}, 120_000);
afterAll(() => service?.stop());

describe('searchNotes with an index that lags behind the notes', () => {
  it('returns only notes that are still active and processed, even with include_trashed', async () => {
    for (const include of ['false', 'true']) {
      const response = await service.api<{ results: { note: { note_id: string; state: string } }[] }>(
        'GET',
        `/v1/search?q=lighthouse+lantern&include_trashed=${include}`,
      );
      expect(response.status).toBe(200);
      const found = response.body.results.map((result) => result.note.note_id);
      // The trashed note is still in the active partition: shown only when trashed notes are asked for.
      expect(found.sort()).toEqual((include === 'true' ? [ids.kept, ids.trashed] : [ids.kept]).sort());
    }
  });
});

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention } from '../../src/domain/retention.ts';
import { DAY_MS } from '../../src/domain/retention-period.ts';
import { getServices } from '../../src/wiring/services.ts';
import { type Api, client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

/**
 * Collections' retention periods and notes' protection through the CLI: the real CLI process
 * against the real local runtime over HTTP, what it did read back through the API. The CLI runs
 * with TZ=UTC, so the moments it prints on stderr can be compared with the API's epoch times.
 */

interface CollectionBody {
  collection_id: string;
  name: string;
  retention_days: number | null;
}
interface NoteBody {
  note_id: string;
  title: string;
  state: 'active' | 'trashed';
  deletes_at: number | null;
  protected: boolean;
  expiry: { trash_at: number; collection_id: string; name: string; retention_days: number } | null;
  history: { at: number; event: string; by: string; collection?: unknown; deletes_at?: number }[];
}

/** How the CLI writes a moment in UTC: `on 2027-01-05 at 14:30`. */
function onAt(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `on ${iso.slice(0, 10)} at ${iso.slice(11, 16)}`;
}

/** A note created through the API whose audio is never uploaded (it stays awaiting_upload). */
async function noteWithoutAudio(api: Api, title: string): Promise<string> {
  const noteId = randomUUID();
  const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect(submitted.status).toBe(202);
  return noteId;
}

async function fileIn(api: Api, collectionId: string, noteId: string): Promise<void> {
  const filed = await api('POST', `/v1/collections/${collectionId}/notes`, { body: { note_id: noteId } });
  expect(filed.status).toBe(200);
}

async function readNote(api: Api, noteId: string): Promise<NoteBody> {
  const response = await api<NoteBody>('GET', `/v1/notes/${noteId}`);
  expect(response.status).toBe(200);
  return response.body;
}

async function readCollection(api: Api, collectionId: string): Promise<CollectionBody | undefined> {
  const { body } = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
  return body.collections.find((collection) => collection.collection_id === collectionId);
}

describe('against the local runtime (npm start)', () => {
  let service: RunningService;
  let api: Api;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startService();
    api = client(service.baseUrl, service.apiKey);
    env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey, TZ: 'UTC' };
  });
  afterAll(() => service?.stop());

  it('creates a collection with --retention-days 30, clears it with none and sets it again; list shows it', async () => {
    const created = await runCli(['collections', 'create', 'Stand-ups CLI', '--retention-days', '30'], env);
    expect(created.code, describeRun(created)).toBe(0);
    const collection = stdoutJson<CollectionBody>(created);
    expect(collection).toMatchObject({ name: 'Stand-ups CLI', retention_days: 30 });
    expect(created.stderr).toContain(
      'Stand-ups CLI keeps notes 30 days: each moves to the trash 30 days after it was made or last restored, unless protected.',
    );
    const { collection_id } = collection;
    expect((await readCollection(api, collection_id))?.retention_days).toBe(30);

    const cleared = await runCli(['collections', 'update', 'stand-ups cli', '--retention-days', 'none'], env);
    expect(cleared.code, describeRun(cleared)).toBe(0);
    expect(stdoutJson(cleared)).toMatchObject({ collection_id, retention_days: null });
    expect(cleared.stderr).toContain('Stand-ups CLI keeps its notes until a person trashes them');
    expect((await readCollection(api, collection_id))?.retention_days).toBeNull();

    const again = await runCli(['collections', 'update', collection_id, '--retention-days', '30'], env);
    expect(again.code, describeRun(again)).toBe(0);
    expect(stdoutJson(again)).toMatchObject({ collection_id, retention_days: 30 });
    expect(again.stderr).toContain('notes older than that go within the hour');

    // Changing something else leaves the period as it is, and says nothing of it.
    const renamed = await runCli(['collections', 'update', collection_id, '--name', 'Daily stand-ups'], env);
    expect(renamed.code, describeRun(renamed)).toBe(0);
    expect(stdoutJson(renamed)).toMatchObject({ name: 'Daily stand-ups', retention_days: 30 });
    expect(renamed.stderr).toBe('');

    const listed = await runCli(['collections', 'list'], env);
    expect(listed.code, describeRun(listed)).toBe(0);
    const found = stdoutJson<{ collections: CollectionBody[] }>(listed).collections.find(
      (c) => c.collection_id === collection_id,
    );
    expect(found).toMatchObject({ name: 'Daily stand-ups', retention_days: 30 });

    const withNone = await runCli(['collections', 'create', 'Kept CLI', '--retention-days', 'none'], env);
    expect(withNone.code, describeRun(withNone)).toBe(0);
    expect(stdoutJson(withNone)).toMatchObject({ name: 'Kept CLI', retention_days: null });
  });

  it('refuses 0, 3651, 2.5 and abc days with exit 2 and a clear message, changing nothing', async () => {
    const { body: collection } = await api<CollectionBody>('POST', '/v1/collections', {
      body: { name: 'Validated CLI', retention_days: 7 },
    });
    for (const days of ['0', '3651', '2.5', 'abc', '']) {
      for (const args of [
        ['collections', 'create', `Bad ${days} CLI`, '--retention-days', days],
        ['collections', 'update', 'Validated CLI', '--retention-days', days],
      ]) {
        const result = await runCli(args, env);
        expect(result.code, `${args.join(' ')}: ${describeRun(result)}`).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(
          `notes: --retention-days must be a whole number of days from 1 to 3650, or none, not '${days}'`,
        );
        expect(result.stderr).toContain(`Run 'notes ${args.slice(0, 2).join(' ')} --help' for usage.`);
      }
    }
    const { body } = await api<{ collections: CollectionBody[] }>('GET', '/v1/collections');
    expect(body.collections.filter((c) => c.name.startsWith('Bad '))).toEqual([]);
    expect((await readCollection(api, collection.collection_id))?.retention_days).toBe(7);
  });

  it('protects and unprotects a note: protected, expiry and history in the API, and stderr says what happened', async () => {
    const { body: standups } = await api<CollectionBody>('POST', '/v1/collections', {
      body: { name: 'Team stand-ups', retention_days: 30 },
    });
    const noteId = await noteWithoutAudio(api, 'Tuesday stand-up');
    await fileIn(api, standups.collection_id, noteId);
    const trashAt = (await readNote(api, noteId)).expiry?.trash_at as number;
    expect(trashAt).toBeGreaterThan(Date.now() + 29 * DAY_MS);

    const before = await runCli(['notes', 'get', noteId], env);
    expect(before.code, describeRun(before)).toBe(0);
    expect(stdoutJson(before)).toMatchObject({ protected: false, expiry: { name: 'Team stand-ups' } });
    expect(before.stderr).toContain(
      `Moves to the trash ${onAt(trashAt)} (Team stand-ups keeps notes 30 days).`,
    );

    const kept = await runCli(['notes', 'protect', noteId], env);
    expect(kept.code, describeRun(kept)).toBe(0);
    expect(stdoutJson(kept)).toMatchObject({ note_id: noteId, protected: true, expiry: null });
    expect(kept.stderr).toMatch(/^ETag: "/m);
    expect(kept.stderr).toContain('Kept: Tuesday stand-up will not move to the trash for its age.');
    const protectedNote = await readNote(api, noteId);
    expect(protectedNote).toMatchObject({ protected: true, expiry: null, state: 'active' });
    expect(protectedNote.history).toEqual([{ at: expect.any(Number), event: 'protected', by: 'person' }]);

    const shown = await runCli(['notes', 'get', noteId], env);
    expect(shown.stderr).toContain('Kept: it does not move to the trash for its age.');
    expect(shown.stderr).not.toContain('Moves to the trash');

    const released = await runCli(['notes', 'unprotect', noteId], env);
    expect(released.code, describeRun(released)).toBe(0);
    expect(stdoutJson(released)).toMatchObject({ protected: false, expiry: { trash_at: trashAt } });
    expect(released.stderr).toContain(
      `No longer kept: moves to the trash ${onAt(trashAt)} (Team stand-ups keeps notes 30 days).`,
    );
    const unprotected = await readNote(api, noteId);
    expect(unprotected).toMatchObject({ protected: false, expiry: { trash_at: trashAt } });
    expect(unprotected.history.map((e) => `${e.event} by ${e.by}`)).toEqual([
      'protected by person',
      'unprotected by person',
    ]);

    // Again: nothing changes, nothing is added to the history.
    const twice = await runCli(['notes', 'unprotect', noteId], env);
    expect(twice.code, describeRun(twice)).toBe(0);
    expect((await readNote(api, noteId)).history).toHaveLength(2);
  });

  it('unprotects a note none of whose collections has a period, and a note in the trash', async () => {
    const noteId = await noteWithoutAudio(api, 'Unfiled thought');
    expect((await runCli(['notes', 'protect', noteId], env)).code).toBe(0);
    const unfiled = await runCli(['notes', 'unprotect', noteId], env);
    expect(unfiled.code, describeRun(unfiled)).toBe(0);
    expect(unfiled.stderr).toContain(
      'No longer kept: none of the collections Unfiled thought is in has a retention period, so it stays until a person trashes it.',
    );

    expect((await runCli(['notes', 'trash', noteId], env)).code).toBe(0);
    const inTrash = await runCli(['notes', 'protect', noteId], env);
    expect(inTrash.code, describeRun(inTrash)).toBe(0);
    expect(stdoutJson(inTrash)).toMatchObject({ state: 'trashed', protected: true, deletes_at: null });
    expect(inTrash.stderr).toContain('Kept: Unfiled thought will not move to the trash for its age.');
    expect(inTrash.stderr).toContain('It is in the trash until a person deletes or restores it.');
    expect((await readNote(api, noteId)).history.map((e) => `${e.event} by ${e.by}`)).toEqual([
      'protected by person',
      'unprotected by person',
      'trashed by person',
      'protected by person',
    ]);
  });

  it('protects only when the note still has the ETag given with --if-match (else exit 5, unchanged)', async () => {
    const noteId = await noteWithoutAudio(api, 'Raced note');
    const seen = (await api('GET', `/v1/notes/${noteId}`)).headers.get('etag') as string;
    expect((await api('PATCH', `/v1/notes/${noteId}`, { body: { title: 'Renamed meanwhile' } })).status).toBe(
      200,
    );
    const stale = await runCli(['notes', 'protect', noteId, '--if-match', seen], env);
    expect(stale.code, describeRun(stale)).toBe(5);
    expect(stale.stdout).toBe('');
    expect((await readNote(api, noteId)).protected).toBe(false);
  });
});

describe('a note the retention moved to the trash (the clock moved forward)', () => {
  let service: InProcessService;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startInProcess({ workers: false });
    const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
    env = { NOTES_BASE_URL: service.runtime.apiUrl, NOTES_API_KEY: apiKey, TZ: 'UTC' };
  });
  afterAll(() => service?.stop());

  it('notes get says when it is deleted for good; notes restore says when it moves to the trash next', async () => {
    const { api } = service;
    const { body: daily } = await api<CollectionBody>('POST', '/v1/collections', {
      body: { name: 'Daily checks', retention_days: 7 },
    });
    const noteId = await noteWithoutAudio(api, 'Morning check');
    await fileIn(api, daily.collection_id, noteId);

    const passAt = Date.now() + 8 * DAY_MS;
    const pass = await applyRetention({ ...getServices(), now: () => passAt }, { trashDays: 30 });
    expect(pass).toMatchObject({ trashed: 1, errors: 0 });
    const trashed = await readNote(api, noteId);
    expect(trashed).toMatchObject({ state: 'trashed', expiry: null, deletes_at: passAt + 30 * DAY_MS });
    expect(trashed.history.at(-1)).toMatchObject({ event: 'trashed', by: 'retention' });

    const shown = await runCli(['notes', 'get', noteId], env);
    expect(shown.code, describeRun(shown)).toBe(0);
    expect(stdoutJson(shown)).toMatchObject({ state: 'trashed', deletes_at: passAt + 30 * DAY_MS });
    expect(shown.stderr).toContain(
      `Deleted for good ${onAt(passAt + 30 * DAY_MS)} unless restored ('notes notes restore ${noteId}').`,
    );

    const restored = await runCli(['notes', 'restore', noteId], env);
    expect(restored.code, describeRun(restored)).toBe(0);
    const back = stdoutJson<NoteBody>(restored);
    expect(back).toMatchObject({ state: 'active', deletes_at: null, expiry: { name: 'Daily checks' } });
    const nextTrashAt = back.expiry?.trash_at as number;
    expect(nextTrashAt).toBeGreaterThan(Date.now() + 6 * DAY_MS);
    expect(restored.stderr).toContain(
      `Moves to the trash ${onAt(nextTrashAt)} (Daily checks keeps notes 7 days).`,
    );
    expect(restored.stderr).not.toContain('Deleted for good');
  });
});

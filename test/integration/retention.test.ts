import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as applyRetentionOnAws } from '../../functions/applyRetention.ts';
import type { DomainDeps } from '../../src/domain/deps.ts';
import { updateNote } from '../../src/domain/notes.ts';
import { applyRetention, type RetentionPass } from '../../src/domain/retention.ts';
import { DAY_MS } from '../../src/domain/retention-period.ts';
import { startRetentionTimer } from '../../src/local/retention-timer.ts';
import { getServices } from '../../src/wiring/services.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * Collections' retention periods on the local runtime's real stores: notes are made and filed over
 * HTTP, then retention passes run with the clock moved forward (the pass's `now`), and what each pass
 * moved to the trash or deleted for good is read back over HTTP. The same pass runs on AWS from the
 * hourly schedule (functions/applyRetention.ts, invoked here) and locally from the runtime's timer.
 */
let service: InProcessService;
let api: Api;
let other: Api;
let startedAt: number;

interface CollectionBody {
  collection_id: string;
  name: string;
  retention_days: number | null;
}
interface NoteEventBody {
  at: number;
  event: string;
  by: string;
  collection?: { collection_id: string; name: string };
  deletes_at?: number;
}
interface NoteBody {
  note_id: string;
  state: 'active' | 'trashed';
  trashed_at: number | null;
  deletes_at: number | null;
  protected: boolean;
  expiry: { trash_at: number; collection_id: string; name: string; retention_days: number } | null;
  history: NoteEventBody[];
}

const TRASH_DAYS = 30;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  ({ api } = service);
  other = await service.otherAccount('retention-other');
  startedAt = Date.now();
}, 120_000);
afterAll(() => service?.stop());

async function collection(name: string, retentionDays: number | null, client: Api = api) {
  const response = await client<CollectionBody>('POST', '/v1/collections', {
    body: { name, ...(retentionDays === null ? {} : { retention_days: retentionDays }) },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** A note awaiting its upload is enough: retention looks at its age and collections only. */
async function note(title: string, filedIn: CollectionBody[], client: Api = api): Promise<string> {
  const noteId = randomUUID();
  const submitted = await client('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
  for (const { collection_id } of filedIn) {
    const filed = await client('POST', `/v1/collections/${collection_id}/notes`, {
      body: { note_id: noteId },
    });
    expect(filed.status).toBe(200);
  }
  return noteId;
}

async function read(noteId: string, client: Api = api): Promise<NoteBody | null> {
  const response = await client<NoteBody>('GET', `/v1/notes/${noteId}`);
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return response.body;
}

/** The deps of the runtime's handlers, with the clock `days` after the test started. */
function at(days: number): DomainDeps {
  return { ...getServices(), now: () => startedAt + days * DAY_MS };
}

async function accountId(client: Api = api): Promise<string> {
  return String((await client('GET', '/v1/account')).body.account_id);
}

const pass = (days: number): Promise<RetentionPass> => applyRetention(at(days), { trashDays: TRASH_DAYS });

describe('retention', () => {
  it('moves to the trash and then deletes exactly the notes past their period, keeping protected, restored and unfiled ones', async () => {
    const standups = await collection('Stand-ups', 30);
    const short = await collection('Daily checks', 7);
    const keep = await collection('Keep', null);
    const routine = await note('Routine stand-up', [standups]);
    const guarded = await note('Protected stand-up', [standups]);
    const kept = await note('Kept talk', [keep]);
    const both = await note('In two periods', [standups, short, keep]);
    const unfiled = await note('Unfiled note', []);
    const rescued = await note('Kept from the trash', [short]);
    const trashedByHand = await note('Trashed by a person', [standups]);
    const theirs = await note('Another account', [await collection('Their stand-ups', 7, other)], other);

    const protect = await api<NoteBody>('PATCH', `/v1/notes/${guarded}`, { body: { protected: true } });
    expect(protect.status).toBe(200);
    expect(protect.body.protected).toBe(true);
    expect(protect.body.expiry).toBeNull();
    expect(protect.body.history).toEqual([expect.objectContaining({ event: 'protected', by: 'person' })]);
    expect((await api('PATCH', `/v1/notes/${trashedByHand}`, { body: { state: 'trashed' } })).status).toBe(
      200,
    );

    // The note page says when each goes: the shortest period of its collections, counted from its making.
    const routineBefore = await read(routine);
    expect(routineBefore?.expiry).toMatchObject({ name: 'Stand-ups', retention_days: 30 });
    expect(routineBefore?.expiry?.trash_at).toBeGreaterThanOrEqual(startedAt + 30 * DAY_MS - 60_000);
    expect((await read(both))?.expiry).toMatchObject({ name: 'Daily checks', retention_days: 7 });
    expect((await read(kept))?.expiry).toBeNull();
    expect((await read(unfiled))?.expiry).toBeNull();

    // Day 6: nothing is due.
    expect(await pass(6)).toEqual({ trashed: 0, deleted: 0, errors: 0 });
    // Day 8: the note in the 7-day collection goes (of both accounts, each to its own trash).
    expect(await pass(8)).toEqual({ trashed: 3, deleted: 0, errors: 0 });
    const bothTrashed = await read(both);
    expect(bothTrashed).toMatchObject({
      state: 'trashed',
      deletes_at: startedAt + (8 + TRASH_DAYS) * DAY_MS,
    });
    expect(bothTrashed?.history.at(-1)).toEqual({
      at: startedAt + 8 * DAY_MS,
      event: 'trashed',
      by: 'retention',
      collection: { collection_id: short.collection_id, name: 'Daily checks' },
      deletes_at: startedAt + 38 * DAY_MS,
    });
    expect((await read(theirs, other))?.state).toBe('trashed');
    expect(await read(theirs)).toBeNull();
    // The trashed list says when it goes for good.
    const trash = await api<{ notes: { note_id: string; deletes_at: number | null }[] }>(
      'GET',
      '/v1/notes?state=trashed',
    );
    expect(trash.body.notes.find((n) => n.note_id === both)?.deletes_at).toBe(startedAt + 38 * DAY_MS);
    expect(trash.body.notes.find((n) => n.note_id === trashedByHand)?.deletes_at).toBeNull();
    // A person keeps a note the retention trashed: it is no longer deleted with the trash period.
    const keepIt = await api<NoteBody>('PATCH', `/v1/notes/${rescued}`, { body: { protected: true } });
    expect(keepIt.body).toMatchObject({ state: 'trashed', protected: true, deletes_at: null });
    // The same day again changes nothing (idempotent).
    expect(await pass(8)).toEqual({ trashed: 0, deleted: 0, errors: 0 });

    // Day 31: the 30-day stand-up goes; the protected one, the kept, the unfiled stay.
    expect(await pass(31)).toEqual({ trashed: 1, deleted: 0, errors: 0 });
    expect((await read(routine))?.state).toBe('trashed');
    for (const id of [guarded, kept, unfiled]) expect((await read(id))?.state).toBe('active');

    // Day 32: a person restores the stand-up; its period starts again from there.
    await updateNote(at(32), await accountId(), routine, { state: 'active' });
    const restored = await read(routine);
    expect(restored).toMatchObject({ state: 'active', deletes_at: null });
    expect(restored?.history.map((e) => `${e.event} by ${e.by}`)).toEqual([
      'trashed by retention',
      'restored by person',
    ]);
    expect(restored?.expiry?.trash_at).toBe(startedAt + 62 * DAY_MS);

    // Day 39: the note trashed on day 8 is deleted for good (its trash period is over); a note a
    // person trashed stays in the trash; the restored one is not deleted.
    expect(await pass(39)).toEqual({ trashed: 0, deleted: 2, errors: 0 });
    expect(await read(both)).toBeNull();
    expect(await read(theirs, other)).toBeNull();
    expect((await read(trashedByHand))?.state).toBe('trashed');
    expect((await read(rescued))?.state).toBe('trashed');
    expect((await read(routine))?.state).toBe('active');

    // Day 63 and 100: the restored note goes again at the end of its new period, then for good.
    expect(await pass(63)).toMatchObject({ trashed: 1, errors: 0 });
    expect(await pass(100)).toMatchObject({ deleted: 1, errors: 0 });
    expect(await read(routine)).toBeNull();
    expect((await read(guarded))?.state).toBe('active');
    expect((await read(trashedByHand))?.state).toBe('trashed');
  }, 120_000);

  it('runs the same pass from the AWS schedule function and the local runtime timer, and forgets a period cleared or deleted', async () => {
    const old = await collection('Old recordings', 1);
    const cleared = await collection('Cleared period', 1);
    const deleted = await collection('Deleted collection', 1);
    const onAws = await plantOldNote([old]);
    const byTimer = await plantOldNote([old]);
    const inCleared = await plantOldNote([cleared]);
    const inDeleted = await plantOldNote([deleted]);
    const clear = await api<CollectionBody>('PATCH', `/v1/collections/${cleared.collection_id}`, {
      body: { retention_days: null },
    });
    expect(clear.body.retention_days).toBeNull();
    expect((await api('DELETE', `/v1/collections/${deleted.collection_id}`)).status).toBe(204);
    await api('PATCH', `/v1/notes/${byTimer}`, { body: { protected: true } });

    // The function the hourly EventBridge schedule invokes on AWS.
    await applyRetentionOnAws({}, {} as Context);
    expect((await read(onAws))?.history.at(-1)).toMatchObject({ event: 'trashed', by: 'retention' });
    expect((await read(byTimer))?.state).toBe('active');
    for (const id of [inCleared, inDeleted]) expect((await read(id))?.expiry).toBeNull();
    for (const id of [inCleared, inDeleted]) expect((await read(id))?.state).toBe('active');

    // The local runtime's timer: a pass at once, then hourly; stop() waits for the running pass.
    const unprotect = await api<NoteBody>('PATCH', `/v1/notes/${byTimer}`, { body: { protected: false } });
    expect(unprotect.body.history.map((e) => e.event)).toEqual(['protected', 'unprotected']);
    const lines: string[] = [];
    const timer = startRetentionTimer(getServices, TRASH_DAYS, (line) => lines.push(line));
    await timer.stop();
    expect((await read(byTimer))?.state).toBe('trashed');
    expect(lines).toEqual([
      'Retention: 1 note(s) moved to the trash, 0 deleted for good after the trash period',
    ]);
    for (const id of [inCleared, inDeleted]) expect((await read(id))?.state).toBe('active');
  });

  it('refuses a retention period that is not a whole number of days from 1 to 3650, and a protection that is not true or false', async () => {
    const { collection_id } = await collection('Validated', null);
    for (const retention_days of [0, 3651, 2.5, '30', -1]) {
      for (const [method, path, body] of [
        ['POST', '/v1/collections', { name: `Bad ${String(retention_days)}`, retention_days }],
        ['PATCH', `/v1/collections/${collection_id}`, { retention_days }],
      ] as const) {
        const response = await api(method, path, { body });
        expect(response.status, `${method} ${JSON.stringify(body)}`).toBe(400);
        expect(String(response.body.detail)).toContain('retention_days');
      }
    }
    const noteId = await note('Validated note', []);
    const response = await api('PATCH', `/v1/notes/${noteId}`, { body: { protected: 'yes' } });
    expect(response.status).toBe(400);
    expect(String(response.body.detail)).toContain('protected');
    expect((await read(noteId))?.protected).toBe(false);
  });
});

/** A note made three days ago (written to the store as submitTranscription would), filed over HTTP. */
async function plantOldNote(filedIn: CollectionBody[]): Promise<string> {
  const noteId = randomUUID();
  const madeAt = Date.now() - 3 * DAY_MS;
  await getServices().notes.createNoteIfAbsent({
    account_id: await accountId(),
    note_id: noteId,
    title: 'An old recording',
    state: 'active',
    created_at: madeAt,
    updated_at: madeAt,
    trashed_at: null,
    audio: null,
  });
  for (const { collection_id } of filedIn) {
    const filed = await api('POST', `/v1/collections/${collection_id}/notes`, { body: { note_id: noteId } });
    expect(filed.status).toBe(200);
  }
  return noteId;
}

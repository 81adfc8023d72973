import { describe, expect, it } from 'vitest';
import type { Collection } from '../../src/domain/collection.ts';
import { NOTE_HISTORY_KEPT, type Note } from '../../src/domain/note.ts';
import { changedNote } from '../../src/domain/note-changes.ts';
import { DAY_MS, retentionEnds } from '../../src/domain/retention-period.ts';

const MADE = Date.UTC(2027, 0, 1);
const note: Note = {
  account_id: 'acc',
  note_id: 'n1',
  title: 'Stand-up',
  state: 'active',
  created_at: MADE,
  updated_at: MADE,
  trashed_at: null,
  audio: null,
  version: 3,
};
const collection = (name: string, retention_days?: number): Collection => ({
  account_id: 'acc',
  collection_id: `c-${name}`,
  name,
  ...(retention_days ? { retention_days } : {}),
  created_at: MADE,
  updated_at: MADE,
});

describe("a note's history", () => {
  it('records who trashed and restored the note, and a retention trash with its collection and deletion date', () => {
    const trashed = changedNote(
      note,
      {
        state: 'trashed',
        retention: { collection: { collection_id: 'c-s', name: 'S' }, deletes_at: MADE + 9 },
      },
      MADE + 5,
    );
    expect(trashed).toMatchObject({ state: 'trashed', trashed_at: MADE + 5, deletes_at: MADE + 9 });
    const restored = changedNote(trashed, { state: 'active' }, MADE + 7);
    expect(restored).toMatchObject({ state: 'active', trashed_at: null, restored_at: MADE + 7 });
    expect(restored.deletes_at).toBeUndefined();
    const byHand = changedNote(restored, { state: 'trashed' }, MADE + 8);
    expect(byHand.deletes_at).toBeUndefined();
    expect(byHand.history).toEqual([
      {
        at: MADE + 5,
        event: 'trashed',
        by: 'retention',
        collection: { collection_id: 'c-s', name: 'S' },
        deletes_at: MADE + 9,
      },
      { at: MADE + 7, event: 'restored', by: 'person' },
      { at: MADE + 8, event: 'trashed', by: 'person' },
    ]);
  });

  it('cancels the deletion the retention scheduled when a person keeps the trashed note', () => {
    const trashed = changedNote(
      note,
      {
        state: 'trashed',
        retention: { collection: { collection_id: 'c-s', name: 'S' }, deletes_at: MADE + 9 },
      },
      MADE + 5,
    );
    const kept = changedNote(trashed, { protected: true }, MADE + 6);
    expect(kept).toMatchObject({ state: 'trashed', protected: true });
    expect(kept.deletes_at).toBeUndefined();
  });

  it('records protection only when it changes, and nothing for a rename', () => {
    const kept = changedNote(note, { protected: true }, MADE + 1);
    expect(kept.protected).toBe(true);
    expect(changedNote(kept, { protected: true }, MADE + 2).history).toHaveLength(1);
    const released = changedNote(kept, { protected: false, title: 'Renamed' }, MADE + 3);
    expect(released.protected).toBeUndefined();
    expect(released.history?.map((event) => event.event)).toEqual(['protected', 'unprotected']);
    expect(changedNote(note, { title: 'Renamed' }, MADE + 4).history).toBeUndefined();
  });

  it(`keeps the last ${NOTE_HISTORY_KEPT} events`, () => {
    let current = note;
    for (let i = 0; i < NOTE_HISTORY_KEPT + 5; i += 1) {
      current = changedNote(current, { protected: i % 2 === 0 }, MADE + i);
    }
    expect(current.history).toHaveLength(NOTE_HISTORY_KEPT);
    expect(current.history?.at(-1)?.at).toBe(MADE + NOTE_HISTORY_KEPT + 4);
  });
});

describe("a note's expiry", () => {
  it('is the shortest period of its collections, counted from its making or its last restore', () => {
    const filed = [collection('Forever'), collection('Month', 30), collection('Week', 7)];
    expect(retentionEnds(note, filed)).toMatchObject({ at: MADE + 7 * DAY_MS, collection: { name: 'Week' } });
    const restored = { ...note, restored_at: MADE + 20 * DAY_MS };
    expect(retentionEnds(restored, filed)?.at).toBe(MADE + 27 * DAY_MS);
  });

  it('is none for a protected or trashed note, or one in no collection with a period', () => {
    const filed = [collection('Week', 7)];
    expect(retentionEnds({ ...note, protected: true }, filed)).toBeNull();
    expect(retentionEnds({ ...note, state: 'trashed', trashed_at: MADE }, filed)).toBeNull();
    expect(retentionEnds(note, [collection('Forever')])).toBeNull();
    expect(retentionEnds(note, [])).toBeNull();
  });
});

import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/adapters/dynamodb/keys.ts';
import { DynamoNoteStore } from '../../src/adapters/dynamodb/note-store.ts';
import type { Note } from '../../src/domain/note.ts';
import { startTableUnderTest, type TableUnderTest } from '../support/emulator-clients.ts';

let table: TableUnderTest;
let db: DynamoDBDocumentClient;
let store: DynamoNoteStore;

beforeAll(async () => {
  table = await startTableUnderTest('versions');
  db = table.db;
  store = new DynamoNoteStore(db, table.emulators.tableName);
});

afterAll(() => table?.stop());

function newNote(): Note {
  return {
    account_id: randomUUID(),
    note_id: randomUUID(),
    title: 'Versioned',
    state: 'active',
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
    trashed_at: null,
    audio: null,
  };
}

describe('note versions in DynamoDB (the basis of If-Match)', () => {
  it('a note is stored at version 1 and every write of it adds one', async () => {
    const { note } = await store.createNoteIfAbsent(newNote());
    expect(note.version).toBe(1);
    const renamed = await store.updateNote(note.account_id, note.note_id, { title: 'Renamed' }, 1);
    expect(renamed?.version).toBe(2);
    const audio = { content_type: 'audio/wav', size_bytes: 10, uploaded_at: 2 };
    expect((await store.setAudio(note.account_id, note.note_id, audio, 2))?.version).toBe(3);
    expect((await store.getNote(note.account_id, note.note_id))?.version).toBe(3);
  });

  it('of two writes made from the same read exactly one succeeds, and the stored note is the winner', async () => {
    const { note } = await store.createNoteIfAbsent(newNote());
    for (let round = 0; round < 20; round += 1) {
      const read = (await store.getNote(note.account_id, note.note_id)) as Note;
      const titles = [`A${round}`, `B${round}`];
      const results = await Promise.all(titles.map((title) => store.updateNoteIf(read, { title }, round)));
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      const stored = await store.getNote(note.account_id, note.note_id);
      expect(stored).toEqual(winners[0]);
      expect(stored?.version).toBe((read.version ?? 0) + 1);
    }
  });

  it('a note stored before versions existed is fenced too, from its first versioned write on', async () => {
    const legacy = newNote();
    await db.send(
      new PutCommand({
        TableName: table.emulators.tableName,
        Item: {
          ...keys.note(legacy.account_id, legacy.note_id),
          ...keys.noteIndex(legacy.account_id, legacy.state, legacy.created_at, legacy.note_id),
          ...legacy,
        },
      }),
    );
    const read = (await store.getNote(legacy.account_id, legacy.note_id)) as Note;
    expect(read.version).toBeUndefined();
    const first = await store.updateNoteIf(read, { title: 'First' }, 1);
    expect(first?.version).toBe(1);
    expect(await store.updateNoteIf(read, { title: 'Second' }, 1)).toBeNull();
    expect((await store.getNote(legacy.account_id, legacy.note_id))?.title).toBe('First');
  });

  it('a conditional write of a note deleted meanwhile fails and does not bring it back', async () => {
    const { note } = await store.createNoteIfAbsent(newNote());
    await store.deleteNoteItems(note.account_id, note.note_id);
    expect(await store.updateNoteIf(note, { title: 'Ghost' }, 1)).toBeNull();
    expect(await store.getNote(note.account_id, note.note_id)).toBeNull();
    expect(await store.updateNote(note.account_id, note.note_id, { title: 'Ghost' }, 1)).toBeNull();
  });
});

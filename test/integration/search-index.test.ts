import { randomUUID } from 'node:crypto';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/adapters/dynamodb/keys.ts';
import { DynamoSearchIndex } from '../../src/adapters/dynamodb/search-index.ts';
import { searchTerms, termFrequencies } from '../../src/domain/search-terms.ts';
import { startTableUnderTest, type TableUnderTest } from '../support/emulator-clients.ts';

const NOTES = {
  budget: 'We agreed to cut the cloud budget by ten percent. The budget review happens every quarter.',
  hiring: 'Hiring two backend engineers is the priority; interviews start next week with the recruiter.',
  garden: 'The tomatoes need more sun, and the garden hose leaks near the shed.',
  release: 'The release slips to March because the payment integration failed its security review.',
};

let table: TableUnderTest;
let db: DynamoDBDocumentClient;
let index: DynamoSearchIndex;

beforeAll(async () => {
  table = await startTableUnderTest('search');
  db = table.db;
  index = new DynamoSearchIndex(db, table.emulators.tableName);
});

afterAll(() => table?.stop());

async function accountWithNotes(): Promise<{ accountId: string; ids: Record<keyof typeof NOTES, string> }> {
  const accountId = randomUUID();
  const ids = Object.fromEntries(Object.keys(NOTES).map((name) => [name, randomUUID()])) as Record<
    keyof typeof NOTES,
    string
  >;
  for (const [name, text] of Object.entries(NOTES)) {
    await index.add(accountId, ids[name as keyof typeof NOTES], termFrequencies(text));
  }
  return { accountId, ids };
}

async function itemsMentioning(value: string): Promise<number> {
  const { Items = [] } = await db.send(new ScanCommand({ TableName: table.emulators.tableName }));
  return Items.filter((item) => JSON.stringify(item).includes(value)).length;
}

describe('the DynamoDB search index behind Ask', () => {
  it('ranks the note that talks about the question first', async () => {
    const { accountId, ids } = await accountWithNotes();
    const cases: [string, string][] = [
      ['How much of the cloud budget do we cut?', ids.budget],
      ['When do interviews for engineers start?', ids.hiring],
      ['Why did the release slip?', ids.release],
      ['Which hose is leaking?', ids.garden],
    ];
    for (const [question, expected] of cases) {
      const { hits } = await index.search(accountId, searchTerms(question), { limit: 3 });
      expect(hits[0]?.note_id, question).toBe(expected);
    }
  });

  it('returns nothing for words no note contains, and weighs rare words above common ones', async () => {
    const { accountId, ids } = await accountWithNotes();
    expect((await index.search(accountId, searchTerms('quantum entanglement'), { limit: 5 })).hits).toEqual(
      [],
    );
    const { idf } = await index.search(accountId, searchTerms('budget review'), { limit: 5 });
    // "review" is in two notes, "budget" in one.
    expect(idf.get('budget')).toBeGreaterThan(idf.get('review') ?? Number.POSITIVE_INFINITY);
    expect(ids.budget).toBeDefined();
  });

  it('scores only the listed notes when a question is scoped', async () => {
    const { accountId, ids } = await accountWithNotes();
    const { hits } = await index.search(accountId, searchTerms('budget review release'), {
      limit: 5,
      noteIds: [ids.release, ids.garden],
    });
    expect(hits.map((hit) => hit.note_id)).toEqual([ids.release]);
  });

  it("never returns another account's notes", async () => {
    await accountWithNotes();
    const stranger = randomUUID();
    expect(await index.size(stranger)).toBe(0);
    expect((await index.search(stranger, searchTerms('cloud budget'), { limit: 5 })).hits).toEqual([]);
  });

  it('counts a note once however often it is added, and removing it leaves no trace', async () => {
    const { accountId, ids } = await accountWithNotes();
    await index.add(accountId, ids.budget, termFrequencies(NOTES.budget));
    expect(await index.size(accountId)).toBe(4);

    await index.remove(accountId, ids.budget);
    await index.remove(accountId, ids.budget);
    expect(await index.size(accountId)).toBe(3);
    expect(await index.indexedIn(accountId, ids.budget)).toBeNull();
    expect(await itemsMentioning(ids.budget)).toBe(0);
    const { hits } = await index.search(accountId, searchTerms('cloud budget'), { limit: 5 });
    expect(hits.map((hit) => hit.note_id)).not.toContain(ids.budget);
  });

  it('finishes an addition that stopped half-way without counting the note twice', async () => {
    const accountId = randomUUID();
    const noteId = randomUUID();
    const document = termFrequencies(NOTES.hiring);
    // What a worker that died after claiming the entry leaves behind: the entry, no postings.
    await db.send(
      new PutCommand({
        TableName: table.emulators.tableName,
        Item: {
          ...keys.noteIndexEntry(accountId, noteId),
          terms: [...document.terms.keys()],
          length: document.length,
          state: 'writing',
          counted: false,
        },
      }),
    );
    expect(await index.indexedIn(accountId, noteId)).toBeNull();
    await index.add(accountId, noteId, document);
    expect(await index.indexedIn(accountId, noteId)).toBe('active');
    const { hits } = await index.search(accountId, searchTerms('recruiter interviews'), { limit: 5 });
    expect(hits.map((hit) => hit.note_id)).toEqual([noteId]);
    expect(await index.size(accountId)).toBe(1);
    await index.remove(accountId, noteId);
    expect(await index.size(accountId)).toBe(0);
  });

  it('keeps a trashed note in its own partition: out of active searches and counts, found when that partition is searched', async () => {
    const { accountId, ids } = await accountWithNotes();
    await index.remove(accountId, ids.garden);
    await index.add(accountId, ids.garden, termFrequencies(NOTES.garden), 'trashed');
    expect(await index.indexedIn(accountId, ids.garden)).toBe('trashed');
    expect(await index.size(accountId)).toBe(3);
    expect(await index.size(accountId, 'trashed')).toBe(1);

    const active = await index.search(accountId, searchTerms('garden hose'), { limit: 5 });
    expect(active.hits).toEqual([]);
    // Scoped searches (Ask's note_ids) read postings by note: the partition still applies.
    const scoped = await index.search(accountId, searchTerms('garden hose'), {
      limit: 5,
      noteIds: [ids.garden],
    });
    expect(scoped.hits).toEqual([]);
    const both = await index.search(accountId, searchTerms('garden hose budget'), {
      limit: 5,
      partitions: ['active', 'trashed'],
    });
    expect(both.hits.map((hit) => hit.note_id).sort()).toEqual([ids.budget, ids.garden].sort());
    expect(both.indexedNotes).toBe(4);

    await index.remove(accountId, ids.garden);
    expect(await index.size(accountId, 'trashed')).toBe(0);
    expect(await itemsMentioning(ids.garden)).toBe(0);
  });

  it('bulk-loads notes with the same counts and ranking as adding them one by one', async () => {
    const accountId = randomUUID();
    const ids = Object.fromEntries(Object.keys(NOTES).map((name) => [name, randomUUID()]));
    await index.load(
      accountId,
      Object.entries(NOTES).map(([name, text]) => ({
        noteId: ids[name] ?? '',
        document: termFrequencies(text),
      })),
    );
    const one = await accountWithNotes();
    expect(await index.size(accountId)).toBe(4);
    for (const question of ['cloud budget review', 'garden hose', 'security review release']) {
      const loaded = await index.search(accountId, searchTerms(question), { limit: 4 });
      const added = await index.search(one.accountId, searchTerms(question), { limit: 4 });
      const name = (id: string, names: Record<string, string>) =>
        Object.keys(names).find((key) => names[key] === id);
      expect(loaded.hits.map((hit) => name(hit.note_id, ids))).toEqual(
        added.hits.map((hit) => name(hit.note_id, one.ids)),
      );
      expect([...loaded.idf]).toEqual([...added.idf]);
    }
    expect(await index.indexedIn(accountId, ids.budget ?? '')).toBe('active');
    await index.remove(accountId, ids.budget ?? '');
    expect(await index.size(accountId)).toBe(3);
  });
  it('ends on the newer text when an older re-indexing overlaps a newer one, whichever starts first', async () => {
    const accountId = randomUUID();
    const long = Array.from({ length: 600 }, (_, i) => `word${i.toString(36)}`).join(' ');
    const newer = { ...termFrequencies(`corrected zebrafish ${long}`), version: 2 };
    const older = { ...termFrequencies(`original pangolin ${long}`), version: 1 };
    const found = async (noteId: string, word: string) =>
      (await index.search(accountId, [word], { limit: 10 })).hits.some((hit) => hit.note_id === noteId);
    // From an outside review: the later add resumed the other's entry as its own and left its words.
    for (const [first, second, delay] of [
      [newer, older, 20],
      [newer, older, 100],
      [older, newer, 20],
    ] as const) {
      const noteId = randomUUID();
      const one = index.add(accountId, noteId, first);
      await new Promise((resolve) => setTimeout(resolve, delay));
      await Promise.all([one, index.add(accountId, noteId, second)]);
      expect(await index.indexedIn(accountId, noteId)).toBe('active');
      expect(await found(noteId, 'zebrafish')).toBe(true);
      expect(await found(noteId, 'pangolin')).toBe(false);
      expect(await found(noteId, 'word1a')).toBe(true);
      await index.remove(accountId, noteId);
      expect(await itemsMentioning(noteId)).toBe(0);
    }
    // Every note was removed again: no count is left behind.
    expect(await index.size(accountId)).toBe(0);
    const frequencies = await index.search(accountId, ['zebrafish', 'pangolin', 'word1a'], { limit: 1 });
    expect(frequencies.idf.size).toBe(0);
  });

  it('never moves a note back to the partition of an older content', async () => {
    const accountId = randomUUID();
    const noteId = randomUUID();
    // Trashed at version 3; an earlier re-indexing of the active note (version 2) arrives late.
    await index.add(accountId, noteId, { ...termFrequencies(NOTES.garden), version: 3 }, 'trashed');
    await index.add(accountId, noteId, { ...termFrequencies(NOTES.garden), version: 2 }, 'active');
    expect(await index.indexedIn(accountId, noteId)).toBe('trashed');
    expect(await index.size(accountId)).toBe(0);
    expect(await index.size(accountId, 'trashed')).toBe(1);
    await index.remove(accountId, noteId);
    expect(await itemsMentioning(noteId)).toBe(0);
  });

  it('changes only the postings and counts of the words that changed, in place', async () => {
    const accountId = randomUUID();
    const noteId = randomUUID();
    const words = Array.from({ length: 3000 }, (_, i) => `term${(i % 500).toString(36)}`).join(' ');
    await index.add(accountId, noteId, { ...termFrequencies(`budget review ${words}`), version: 1 });
    let calls = 0;
    const counting = new DynamoSearchIndex(
      new Proxy(db, {
        get: (target, property, receiver) =>
          property === 'send'
            ? (...args: Parameters<typeof db.send>) => {
                calls++;
                return target.send(...args);
              }
            : Reflect.get(target, property, receiver),
      }),
      table.emulators.tableName,
    );
    await counting.add(accountId, noteId, { ...termFrequencies(`budget forecast ${words}`), version: 2 });
    // Read the entry, claim it, two counters up, record, index size, one batch of postings, commit, one counter down.
    expect(calls).toBeLessThanOrEqual(10);
    const hits = async (word: string) =>
      (await index.search(accountId, [word], { limit: 5 })).hits.map((hit) => hit.note_id);
    expect(await hits('forecast')).toEqual([noteId]);
    expect(await hits('review')).toEqual([]);
    expect(await hits('term9')).toEqual([noteId]);
    expect(await index.size(accountId)).toBe(1);
    // An older content arriving late changes nothing.
    await index.add(accountId, noteId, { ...termFrequencies(`budget review ${words}`), version: 1 });
    expect(await hits('forecast')).toEqual([noteId]);
    await index.remove(accountId, noteId);
    expect(await itemsMentioning(noteId)).toBe(0);
    expect((await index.search(accountId, ['forecast', 'review', 'budget'], { limit: 1 })).idf.size).toBe(0);
  });

  it('keeps no more index writes in flight than it was given while a note is added', async () => {
    const peaksInFlight = async (options: { writesInFlight?: number }) => {
      const inFlight = { all: 0, batches: 0 };
      const peak = { all: 0, batches: 0 };
      const observed = new DynamoSearchIndex(
        new Proxy(db, {
          get: (target, property, receiver) =>
            property === 'send'
              ? async (...args: Parameters<typeof db.send>) => {
                  const batch = args[0] instanceof BatchWriteCommand;
                  peak.all = Math.max(peak.all, ++inFlight.all);
                  if (batch) peak.batches = Math.max(peak.batches, ++inFlight.batches);
                  try {
                    return await target.send(...args);
                  } finally {
                    inFlight.all--;
                    if (batch) inFlight.batches--;
                  }
                }
              : Reflect.get(target, property, receiver),
        }),
        table.emulators.tableName,
        options,
      );
      const words = Array.from({ length: 200 }, (_, i) => `word${i.toString(36)}`).join(' ');
      await observed.add(randomUUID(), randomUUID(), termFrequencies(words));
      return peak;
    };
    // 200 new terms: 200 counters at once as allowed, then 8 batches of postings, at most 4 at once.
    expect(await peaksInFlight({})).toEqual({ all: 16, batches: 4 });
    expect(await peaksInFlight({ writesInFlight: 2 })).toEqual({ all: 2, batches: 2 });
  });
});

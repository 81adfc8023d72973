import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { inverseDocumentFrequency, termWeight } from '../../domain/bm25.ts';
import type {
  IndexedDocument,
  IndexPartition,
  SearchHit,
  SearchIndex,
  SearchResult,
} from '../../ports/search-index.ts';
import { batchGetAll, batchWriteAll, forEachLimited } from './batch.ts';
import { writeIf } from './client.ts';
import { GSI1, keys, postingsByWeight } from './keys.ts';

/** Postings read per question term: the notes where the term weighs most. */
const POSTINGS_PER_TERM = 200;
/** Terms of a question that are searched, rarest first (a pasted paragraph must stay cheap). */
const MAX_QUERY_TERMS = 16;
/**
 * Postings a scoped search reads at most (100 per BatchGetItem): a large scope is scored on its
 * rarest terms only, as many as fit (at least the rarest one).
 */
const SCOPED_POSTING_READS = 20_000;
/** Counter updates in flight while a note is added or removed. */
const COUNTER_CONCURRENCY = 16;
/** Stored weights are fixed-point so that they sort as strings. */
const WEIGHT_SCALE = 10_000_000;

/**
 * A note's entry says which terms it added (to take them out again) and whether it is counted in the
 * document frequencies. `writing` and `removing` mark a note whose postings are being written or
 * deleted; only the caller that creates the entry or moves it to `removing` proceeds, so concurrent
 * calls do not count a note twice. A process that dies between counting and marking the entry leaves
 * it counted twice: counts only weight terms, so that costs a little ranking precision, not results.
 */
type EntryState = 'writing' | 'indexed' | 'removing';
interface IndexEntry {
  terms: string[];
  length: number;
  state: EntryState;
  counted: boolean;
  /** Absent on entries written before trashed notes were indexed: those are active. */
  partition: IndexPartition;
}

interface Posting {
  note_id: string;
  term: string;
  tf: number;
  length: number;
  partition?: IndexPartition;
}

interface Stats {
  documents: number;
  totalLength: number;
}

const ACTIVE_ONLY: readonly IndexPartition[] = ['active'];

/**
 * The search index in the notes table (see keys.ts): one posting per (term, note), ordered by BM25
 * weight in gsi1; document frequencies and the account's note count and total length as counters.
 *
 * A question costs one BatchGet for the counters, one Query of at most 200 postings per term (16 terms
 * at most) and partition searched, and one BatchGet to complete the scores of the best candidates,
 * whatever the number of notes. Searching several partitions adds their counts up, so the scores of
 * active and trashed notes are comparable within one search. Weights in gsi1 use the average note length at the time a note was added; final scores are
 * recomputed with the current average, so only the choice of candidates can drift, not their order.
 */
export class DynamoSearchIndex implements SearchIndex {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async add(
    accountId: string,
    noteId: string,
    document: IndexedDocument,
    requested: IndexPartition = 'active',
  ): Promise<void> {
    const terms = [...document.terms.keys()];
    let entry = await this.entry(accountId, noteId);
    if (entry?.state === 'indexed' || entry?.state === 'removing') return;
    if (!entry) {
      entry = { terms, length: document.length, state: 'writing', counted: false, partition: requested };
      if (!(await this.createEntry(accountId, noteId, entry))) return;
    }
    // An addition that stopped half-way is finished in the partition it started in.
    const { partition } = entry;

    const stats = await this.stats(accountId, partition);
    const extra = entry.counted ? 0 : 1;
    const averageLength = averageOf(stats.documents + extra, stats.totalLength + extra * document.length);
    await batchWriteAll(
      this.db,
      this.tableName,
      [...document.terms].map(([term, tf]) => ({
        PutRequest: {
          Item: this.postingItem(accountId, noteId, term, tf, document.length, averageLength, partition),
        },
      })),
    );
    if (!entry.counted) await this.count(accountId, partition, terms, document.length, +1);
    if (await this.markIndexed(accountId, noteId)) return;
    // Removed while being added: take back what this call wrote.
    await this.deletePostings(accountId, noteId, terms);
    if (!entry.counted) await this.count(accountId, partition, terms, document.length, -1);
  }

  /**
   * Bulk load for notes that are not in the index yet (a backfill, the benchmarks' large accounts):
   * their entries and postings in batches, then each term's count once for all of them, instead of
   * one counter update per note and term. Not for notes that may be indexed concurrently.
   */
  async load(
    accountId: string,
    documents: ReadonlyArray<{ noteId: string; document: IndexedDocument }>,
    partition: IndexPartition = 'active',
  ): Promise<void> {
    const stats = await this.stats(accountId, partition);
    const addedLength = documents.reduce((sum, { document }) => sum + document.length, 0);
    const averageLength = averageOf(stats.documents + documents.length, stats.totalLength + addedLength);
    const frequencies = new Map<string, number>();
    const requests = documents.flatMap(({ noteId, document }) => {
      const terms = [...document.terms.keys()];
      for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      const entry: IndexEntry = {
        terms,
        length: document.length,
        state: 'indexed',
        counted: true,
        partition,
      };
      return [
        { PutRequest: { Item: { ...keys.noteIndexEntry(accountId, noteId), note_id: noteId, ...entry } } },
        ...[...document.terms].map(([term, tf]) => ({
          PutRequest: {
            Item: this.postingItem(accountId, noteId, term, tf, document.length, averageLength, partition),
          },
        })),
      ];
    });
    await batchWriteAll(this.db, this.tableName, requests, COUNTER_CONCURRENCY);
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.indexStats(accountId, partition),
        UpdateExpression: 'ADD documents :d, total_length :l',
        ExpressionAttributeValues: { ':d': documents.length, ':l': addedLength },
      }),
    );
    await forEachLimited([...frequencies], COUNTER_CONCURRENCY, ([term, df]) =>
      this.addToDf(accountId, partition, term, df),
    );
  }

  async remove(accountId: string, noteId: string): Promise<void> {
    const entry = await this.entry(accountId, noteId);
    if (!entry) return;
    // Whoever moves the entry to `removing` takes the note out of the counters; a retry only deletes.
    const won = entry.state !== 'removing' && (await this.markRemoving(accountId, noteId));
    await this.deletePostings(accountId, noteId, entry.terms);
    if (won && entry.counted) await this.count(accountId, entry.partition, entry.terms, entry.length, -1);
    await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.noteIndexEntry(accountId, noteId) }),
    );
  }

  async indexedIn(accountId: string, noteId: string): Promise<IndexPartition | null> {
    const entry = await this.entry(accountId, noteId);
    return entry?.state === 'indexed' ? entry.partition : null;
  }

  async size(accountId: string, partition: IndexPartition = 'active'): Promise<number> {
    return (await this.stats(accountId, partition)).documents;
  }

  async search(
    accountId: string,
    queryTerms: string[],
    options: { limit: number; noteIds?: readonly string[]; partitions?: readonly IndexPartition[] },
  ): Promise<SearchResult> {
    const partitions = options.partitions ?? ACTIVE_ONLY;
    const unique = [...new Set(queryTerms)].slice(0, 64);
    const [stats, frequencies] = await Promise.all([
      this.statsOf(accountId, partitions),
      this.documentFrequencies(accountId, unique, partitions),
    ]);
    const idf = new Map<string, number>();
    for (const term of unique) {
      const df = frequencies.get(term) ?? 0;
      if (df > 0) idf.set(term, inverseDocumentFrequency(stats.documents, df));
    }
    const terms = [...idf.keys()]
      .sort((a, b) => (idf.get(b) ?? 0) - (idf.get(a) ?? 0))
      .slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || stats.documents === 0) return { hits: [], idf, indexedNotes: stats.documents };

    // Scoped questions score their notes exactly; open ones start from each term's heaviest postings.
    const candidates = options.noteIds
      ? await this.postings(
          accountId,
          scopedTerms(terms, options.noteIds.length),
          options.noteIds,
          partitions,
        )
      : await this.topPostings(accountId, terms, partitions);
    const averageLength = averageOf(stats.documents, stats.totalLength);
    let ranked = rank(candidates, idf, averageLength);
    if (!options.noteIds) {
      // A candidate may lack postings for terms where it was not among the heaviest: fetch those.
      const best = ranked.slice(0, options.limit * 2).map((hit) => hit.note_id);
      const complete = await this.postings(accountId, terms, best, partitions);
      ranked = rank(complete, idf, averageLength);
    }
    return { hits: ranked.slice(0, options.limit), idf, indexedNotes: stats.documents };
  }

  private async topPostings(
    accountId: string,
    terms: string[],
    partitions: readonly IndexPartition[],
  ): Promise<Posting[]> {
    const lists = await Promise.all(
      terms
        .flatMap((term) => partitions.map((partition) => ({ term, partition })))
        .map(async (list) => {
          const { Items } = await this.db.send(
            new QueryCommand({
              TableName: this.tableName,
              IndexName: GSI1,
              KeyConditionExpression: 'gsi1pk = :pk',
              ExpressionAttributeValues: { ':pk': postingsByWeight(accountId, list.term, list.partition) },
              ScanIndexForward: false,
              Limit: POSTINGS_PER_TERM,
            }),
          );
          return (Items ?? []) as Posting[];
        }),
    );
    return lists.flat();
  }

  /** A note's postings for the terms, when the note is in one of the partitions. */
  private async postings(
    accountId: string,
    terms: string[],
    noteIds: readonly string[],
    partitions: readonly IndexPartition[],
  ): Promise<Posting[]> {
    const wanted = noteIds.flatMap((noteId) => terms.map((term) => keys.posting(accountId, term, noteId)));
    const found = (await batchGetAll(this.db, this.tableName, wanted)) as unknown as Posting[];
    return found.filter((posting) => partitions.includes(posting.partition ?? 'active'));
  }

  /** Summed over the partitions (a term's df across them). */
  private async documentFrequencies(
    accountId: string,
    terms: string[],
    partitions: readonly IndexPartition[],
  ): Promise<Map<string, number>> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      partitions.flatMap((partition) => terms.map((term) => keys.termStats(accountId, term, partition))),
    );
    const frequencies = new Map<string, number>();
    for (const item of items) {
      const term = String(item.term);
      frequencies.set(term, (frequencies.get(term) ?? 0) + Number(item.df ?? 0));
    }
    return frequencies;
  }

  private async statsOf(accountId: string, partitions: readonly IndexPartition[]): Promise<Stats> {
    const all = await Promise.all(partitions.map((partition) => this.stats(accountId, partition)));
    return all.reduce(
      (sum, one) => ({
        documents: sum.documents + one.documents,
        totalLength: sum.totalLength + one.totalLength,
      }),
      { documents: 0, totalLength: 0 },
    );
  }

  private async stats(accountId: string, partition: IndexPartition): Promise<Stats> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.indexStats(accountId, partition) }),
    );
    return { documents: Number(Item?.documents ?? 0), totalLength: Number(Item?.total_length ?? 0) };
  }

  private async count(
    accountId: string,
    partition: IndexPartition,
    terms: string[],
    length: number,
    delta: 1 | -1,
  ): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.indexStats(accountId, partition),
        UpdateExpression: 'ADD documents :d, total_length :l',
        ExpressionAttributeValues: { ':d': delta, ':l': delta * length },
      }),
    );
    await forEachLimited(terms, COUNTER_CONCURRENCY, (term) =>
      this.addToDf(accountId, partition, term, delta),
    );
  }

  private async addToDf(
    accountId: string,
    partition: IndexPartition,
    term: string,
    delta: number,
  ): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.termStats(accountId, term, partition),
        UpdateExpression: 'SET #term = :term ADD df :d',
        ExpressionAttributeNames: { '#term': 'term' },
        ExpressionAttributeValues: { ':term': term, ':d': delta },
      }),
    );
  }

  private postingItem(
    accountId: string,
    noteId: string,
    term: string,
    tf: number,
    length: number,
    averageLength: number,
    partition: IndexPartition,
  ): Record<string, unknown> {
    return {
      ...keys.posting(accountId, term, noteId),
      ...keys.postingIndex(
        accountId,
        term,
        termWeight(tf, length, averageLength) * WEIGHT_SCALE,
        noteId,
        partition,
      ),
      note_id: noteId,
      term,
      tf,
      length,
      partition,
    };
  }

  private async entry(accountId: string, noteId: string): Promise<IndexEntry | null> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.noteIndexEntry(accountId, noteId),
        ConsistentRead: true,
      }),
    );
    if (!Item) return null;
    return {
      terms: Item.terms as string[],
      length: Number(Item.length),
      state: Item.state as EntryState,
      counted: Item.counted === true,
      partition: (Item.partition as IndexPartition | undefined) ?? 'active',
    };
  }

  private async createEntry(accountId: string, noteId: string, entry: IndexEntry): Promise<boolean> {
    return writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.noteIndexEntry(accountId, noteId), note_id: noteId, ...entry },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /** `writing` -> `indexed` (and counted); false when the entry was removed meanwhile. */
  private markIndexed(accountId: string, noteId: string): Promise<boolean> {
    return this.transition(accountId, noteId, 'writing', 'SET #state = :next, counted = :true', 'indexed');
  }

  /** -> `removing`; false when another caller got there first or the entry is gone. */
  private markRemoving(accountId: string, noteId: string): Promise<boolean> {
    return this.transition(accountId, noteId, null, 'SET #state = :next', 'removing');
  }

  private async transition(
    accountId: string,
    noteId: string,
    from: EntryState | null,
    update: string,
    next: EntryState,
  ): Promise<boolean> {
    return writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.noteIndexEntry(accountId, noteId),
        UpdateExpression: update,
        ConditionExpression: from ? '#state = :from' : 'attribute_exists(pk) AND #state <> :next',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':next': next,
          ...(from ? { ':from': from } : {}),
          ...(update.includes(':true') ? { ':true': true } : {}),
        },
      }),
    );
  }

  private deletePostings(accountId: string, noteId: string, terms: string[]): Promise<void> {
    return batchWriteAll(
      this.db,
      this.tableName,
      terms.map((term) => ({ DeleteRequest: { Key: keys.posting(accountId, term, noteId) } })),
    );
  }
}

/** The rarest terms whose postings of `notes` notes fit the read budget (terms are rarest first). */
function scopedTerms(terms: string[], notes: number): string[] {
  return terms.slice(0, Math.max(1, Math.floor(SCOPED_POSTING_READS / Math.max(notes, 1))));
}

function averageOf(documents: number, totalLength: number): number {
  return documents > 0 ? totalLength / documents : 1;
}

function rank(postings: Posting[], idf: Map<string, number>, averageLength: number): SearchHit[] {
  const hits = new Map<string, SearchHit>();
  for (const posting of postings) {
    const weight = (idf.get(posting.term) ?? 0) * termWeight(posting.tf, posting.length, averageLength);
    const hit = hits.get(posting.note_id) ?? { note_id: posting.note_id, score: 0, terms: [] };
    hit.score += weight;
    if (!hit.terms.includes(posting.term)) hit.terms.push(posting.term);
    hits.set(posting.note_id, hit);
  }
  // Ties by note ID in code-unit order: the order search cursors compare with.
  return [...hits.values()].sort((a, b) => b.score - a.score || (a.note_id < b.note_id ? -1 : 1));
}

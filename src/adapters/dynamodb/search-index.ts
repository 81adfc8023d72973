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
import {
  claimFrom,
  countedTerms,
  digestOf,
  type IndexEntry,
  parseEntry,
  postedTerms,
  settled,
  unchangedSince,
} from './index-entry.ts';
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
/** Counter updates in flight while a note is added or removed, unless told otherwise. */
const WRITES_IN_FLIGHT = 16;
/** Batch writes of postings in flight (25 items each), at most. */
const BATCH_WRITES_IN_FLIGHT = 4;
/** Tries at claiming a note's entry before giving way to the writers that keep changing it. */
const CLAIM_ATTEMPTS = 5;
/** Stored weights are fixed-point so that they sort as strings. */
const WEIGHT_SCALE = 10_000_000;

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
  private readonly writesInFlight: number;

  /**
   * `writesInFlight`: the index's writes sent at once while notes are added, loaded or removed
   * (default 16; batches of postings at most 4). DynamoDB serves many at once; an embedded emulator
   * serves one request at a time on the thread that also answers the API's reads, which then wait
   * behind every write already sent.
   */
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: { writesInFlight?: number } = {},
  ) {
    this.writesInFlight = options.writesInFlight ?? WRITES_IN_FLIGHT;
  }

  /**
   * Brings the note's postings and counters to `document`, unless a newer version (or this one) is
   * already there. A writer claims the entry with a conditional write on the version it read, so of
   * two writers the later claim wins and the other stops at its next step and puts back what it wrote
   * over the winner's postings. Only the terms whose frequency changed are written: a one-word
   * correction costs a few postings and counters, and the note stays searchable throughout.
   */
  async add(
    accountId: string,
    noteId: string,
    document: IndexedDocument,
    requested: IndexPartition = 'active',
  ): Promise<void> {
    const version = document.version ?? 0;
    const digest = digestOf(document);
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const found = await this.entry(accountId, noteId);
      if (found?.state === 'removing') return;
      // Newer content is there, or on its way (in whichever partition).
      if (found && !found.legacy && found.version > version) return;
      if (found && found.partition !== requested) {
        await this.remove(accountId, noteId);
        continue;
      }
      // This very content: done, or an interrupted attempt (a redelivery) to finish.
      if (found && !found.legacy && found.version === version && found.digest === digest) {
        if (found.state === 'writing') await this.write(accountId, noteId, found);
        return;
      }
      if (found && settled(found) && found.digest === digest) {
        // The same words under a newer version (e.g. only speakers corrected): nothing to rewrite.
        if (
          await this.updateEntryIf(accountId, noteId, found, 'SET version = :version', {
            ':version': version,
          })
        )
          return;
        continue;
      }
      const claimed = claimFrom(found, document, requested);
      if (await this.putEntryIf(accountId, noteId, claimed, found)) {
        await this.write(accountId, noteId, claimed);
        return;
      }
    }
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
      for (const term of document.terms.keys()) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      const {
        pending: _p,
        uncounted: _u,
        overcounted: _o,
        counted_length: _l,
        counted_doc: _d,
        ...entry
      } = claimFrom(null, document, partition);
      return [
        {
          PutRequest: {
            Item: { ...keys.noteIndexEntry(accountId, noteId), note_id: noteId, ...entry, state: 'indexed' },
          },
        },
        ...[...document.terms].map(([term, tf]) => ({
          PutRequest: {
            Item: this.postingItem(accountId, noteId, { term, tf, averageLength, ...entry }),
          },
        })),
      ];
    });
    await batchWriteAll(this.db, this.tableName, requests, this.writesInFlight);
    await this.addToStats(accountId, partition, documents.length, addedLength);
    await forEachLimited([...frequencies], this.writesInFlight, ([term, df]) =>
      this.addToDf(accountId, partition, term, df),
    );
  }

  async remove(accountId: string, noteId: string): Promise<void> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const entry = await this.entry(accountId, noteId);
      if (!entry) return;
      // Whoever moves the entry to `removing` takes the note out of the counters; a retry only deletes.
      const won =
        entry.state !== 'removing' &&
        (await this.updateEntryIf(accountId, noteId, entry, 'SET #state = :removing', {
          ':removing': 'removing',
        }));
      if (entry.state !== 'removing' && !won) continue;
      await this.deletePostings(accountId, noteId, postedTerms(entry));
      if (won) {
        const counted = countedTerms(entry);
        const counts = settled(entry)
          ? { documents: 1, length: entry.length }
          : { documents: entry.counted_doc ? 1 : 0, length: entry.counted_length };
        await this.addToStats(accountId, entry.partition, -counts.documents, -counts.length);
        await forEachLimited([...counted], this.writesInFlight, (term) =>
          this.addToDf(accountId, entry.partition, term, -1),
        );
      }
      await this.db.send(
        new DeleteCommand({ TableName: this.tableName, Key: keys.noteIndexEntry(accountId, noteId) }),
      );
      return;
    }
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
    const { stats, frequencies } = await this.statsAndFrequencies(accountId, unique, partitions);
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

  /**
   * The index counts and each term's document frequency, summed over the partitions, in one batch
   * read (the counts are items of the same partition).
   */
  private async statsAndFrequencies(
    accountId: string,
    terms: string[],
    partitions: readonly IndexPartition[],
  ): Promise<{ stats: Stats; frequencies: Map<string, number> }> {
    const statsKeys = partitions.map((partition) => keys.indexStats(accountId, partition));
    const items = await batchGetAll(this.db, this.tableName, [
      ...statsKeys,
      ...partitions.flatMap((partition) => terms.map((term) => keys.termStats(accountId, term, partition))),
    ]);
    const statsSortKeys = new Set(statsKeys.map((key) => key.sk));
    const stats: Stats = { documents: 0, totalLength: 0 };
    const frequencies = new Map<string, number>();
    for (const item of items) {
      if (statsSortKeys.has(String(item.sk))) {
        stats.documents += Number(item.documents ?? 0);
        stats.totalLength += Number(item.total_length ?? 0);
        continue;
      }
      const term = String(item.term);
      frequencies.set(term, (frequencies.get(term) ?? 0) + Number(item.df ?? 0));
    }
    return { stats, frequencies };
  }

  private async stats(accountId: string, partition: IndexPartition): Promise<Stats> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.indexStats(accountId, partition) }),
    );
    return { documents: Number(Item?.documents ?? 0), totalLength: Number(Item?.total_length ?? 0) };
  }

  /**
   * Carries out a claimed entry: counters up first (a crash before the entry records them counts
   * them again, never too little), then the pending postings, then the entry marked indexed, then
   * the counters of the terms the note lost. Every entry update is conditional on the claim: a writer
   * overtaken by a newer one stops, and puts back any posting it wrote over the newer one's.
   */
  private async write(accountId: string, noteId: string, entry: IndexEntry): Promise<void> {
    const { partition } = entry;
    const lengthChange = entry.length - entry.counted_length;
    if (entry.uncounted.length > 0 || !entry.counted_doc || lengthChange !== 0) {
      await this.addToStats(accountId, partition, entry.counted_doc ? 0 : 1, lengthChange);
      await forEachLimited(entry.uncounted, this.writesInFlight, (term) =>
        this.addToDf(accountId, partition, term, 1),
      );
      const recorded = await this.updateEntryIf(
        accountId,
        noteId,
        entry,
        'SET uncounted = :none, counted_doc = :true, counted_length = :length',
        { ':none': [], ':true': true, ':length': entry.length },
      );
      // Overtaken before recording them: the new claim did not see them counted, so take them back.
      if (!recorded) return this.uncount(accountId, entry, lengthChange);
    }
    const stats = await this.stats(accountId, partition);
    const averageLength = averageOf(stats.documents, stats.totalLength);
    await batchWriteAll(
      this.db,
      this.tableName,
      entry.pending.map((term) => {
        const tf = entry.tfs[term];
        return tf === undefined
          ? { DeleteRequest: { Key: keys.posting(accountId, term, noteId) } }
          : {
              PutRequest: {
                Item: this.postingItem(accountId, noteId, { ...entry, term, tf, averageLength }),
              },
            };
      }),
      this.batchWritesInFlight(),
    );
    const committed = await this.updateEntryIf(
      accountId,
      noteId,
      entry,
      'SET #state = :indexed REMOVE pending, uncounted, overcounted, counted_length, counted_doc',
      { ':indexed': 'indexed' },
    );
    if (!committed) return this.undoOvertaken(accountId, noteId, entry);
    await forEachLimited(entry.overcounted, this.writesInFlight, (term) =>
      this.addToDf(accountId, partition, term, -1),
    );
  }

  private async uncount(accountId: string, entry: IndexEntry, lengthChange: number): Promise<void> {
    await this.addToStats(accountId, entry.partition, entry.counted_doc ? 0 : -1, -lengthChange);
    await forEachLimited(entry.uncounted, this.writesInFlight, (term) =>
      this.addToDf(accountId, entry.partition, term, -1),
    );
  }

  /**
   * This writer's postings (those still carrying its version) become what the entry now says: the
   * newer writer's, or nothing when the note is being removed. Conditional on each posting, so a
   * posting the newer writer already wrote is left alone.
   */
  private async undoOvertaken(accountId: string, noteId: string, mine: IndexEntry): Promise<void> {
    const now = await this.entry(accountId, noteId);
    const winner = now && now.state !== 'removing' ? now : null;
    const stats = winner ? await this.stats(accountId, winner.partition) : null;
    const averageLength = stats ? averageOf(stats.documents, stats.totalLength) : 1;
    await forEachLimited(mine.pending, this.writesInFlight, async (term) => {
      const tf = winner?.tfs[term];
      const key = keys.posting(accountId, term, noteId);
      const values = { ':mine': mine.version };
      await writeIf(
        this.db,
        winner && tf !== undefined
          ? new PutCommand({
              TableName: this.tableName,
              Item: this.postingItem(accountId, noteId, { ...winner, term, tf, averageLength }),
              ConditionExpression: 'attribute_not_exists(pk) OR version = :mine',
              ExpressionAttributeValues: values,
            })
          : new DeleteCommand({
              TableName: this.tableName,
              Key: key,
              ConditionExpression: 'version = :mine',
              ExpressionAttributeValues: values,
            }),
      );
    });
  }

  private async addToStats(
    accountId: string,
    partition: IndexPartition,
    documents: number,
    length: number,
  ): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.indexStats(accountId, partition),
        UpdateExpression: 'ADD documents :d, total_length :l',
        ExpressionAttributeValues: { ':d': documents, ':l': length },
      }),
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

  /** A posting carries the note's length and the version that wrote it (see undoOvertaken). */
  private postingItem(
    accountId: string,
    noteId: string,
    posting: {
      term: string;
      tf: number;
      posted_length: number;
      averageLength: number;
      partition: IndexPartition;
      version: number;
    },
  ): Record<string, unknown> {
    const { term, tf, posted_length: length, averageLength, partition, version } = posting;
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
      version,
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
    return Item ? parseEntry(Item) : null;
  }

  /** Writes a claimed entry if the stored one is still `found`. */
  private putEntryIf(
    accountId: string,
    noteId: string,
    entry: IndexEntry,
    found: IndexEntry | null,
  ): Promise<boolean> {
    const { condition, values } = unchangedSince(found);
    return writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.noteIndexEntry(accountId, noteId), note_id: noteId, ...entry },
        ConditionExpression: condition,
        ...(found ? { ExpressionAttributeNames: { '#state': 'state' } } : {}),
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  }

  /** Updates the entry if it is still `expected`; false when another writer or a removal got there. */
  private updateEntryIf(
    accountId: string,
    noteId: string,
    expected: IndexEntry,
    update: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    const { condition, values: was } = unchangedSince(expected);
    return writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.noteIndexEntry(accountId, noteId),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ...was, ...values },
      }),
    );
  }

  private batchWritesInFlight(): number {
    return Math.min(BATCH_WRITES_IN_FLIGHT, this.writesInFlight);
  }

  private deletePostings(accountId: string, noteId: string, terms: string[]): Promise<void> {
    return batchWriteAll(
      this.db,
      this.tableName,
      terms.map((term) => ({ DeleteRequest: { Key: keys.posting(accountId, term, noteId) } })),
      this.batchWritesInFlight(),
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
    const hit = hits.get(posting.note_id) ?? {
      note_id: posting.note_id,
      score: 0,
      terms: [],
      length: posting.length,
    };
    hit.score += weight;
    if (!hit.terms.includes(posting.term)) hit.terms.push(posting.term);
    hits.set(posting.note_id, hit);
  }
  // Ties by note ID in code-unit order: the order search cursors compare with.
  return [...hits.values()].sort((a, b) => b.score - a.score || (a.note_id < b.note_id ? -1 : 1));
}

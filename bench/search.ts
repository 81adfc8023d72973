/**
 * searchNotes at 10, 1,000 and 10,000 notes in one account: p50/p95 over HTTP for two-word queries,
 * quoted phrases and a word nearly every note contains, next to getNote measured in the same run
 * (one key check and two reads: the floor of a note read). The account grows in place: notes are
 * stored (note, completed job, transcript) and bulk-loaded into the index through the adapters, with
 * the same synthetic text as the Ask benchmark, so nothing is transcribed.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoSearchIndex } from '../src/adapters/dynamodb/search-index.ts';
import { forEachLimited } from '../src/domain/concurrency.ts';
import { termFrequencies } from '../src/domain/search-terms.ts';
import { call, noteText, percentiles, pick, round, SUBJECTS, seeded, storeTranscribedNote } from './ask.ts';
import { startInProcessRuntime } from './in-process.ts';

const SIZES = [10, 1_000, 10_000];
const QUERIES = 100;
const STORE_CONCURRENCY = 16;
const LOAD_BATCH = 500;
/** Words of the ask benchmark's sentences: "budget" is in most notes, the worst case for a posting list. */
const COMMON_WORD = 'budget';
const PHRASES = ['new budget', 'team report', 'move the meeting', 'check the contract'];

interface Timing {
  p50: number;
  p95: number;
}

export interface SearchBenchRow {
  notes: number;
  seed_seconds: number;
  two_words_ms: Timing;
  phrase_ms: Timing;
  common_word_ms: Timing;
  baseline_get_note_ms: Timing;
  /** Two-word queries whose note came first (the query names two of its three subject words). */
  top_hit_rate: number;
}

export async function searchBench(): Promise<SearchBenchRow[]> {
  const runtime = await startInProcessRuntime('search');
  try {
    const { apiKey, services } = runtime;
    const index = services.search as DynamoSearchIndex;
    const account = (await call(runtime.apiUrl, apiKey, 'GET', '/v1/account')).body.account_id as string;
    const random = seeded(11);
    const notes: { id: string; title: string; subjects: string[]; text: string }[] = [];
    const rows: SearchBenchRow[] = [];

    for (const size of SIZES) {
      const started = performance.now();
      const added = Array.from({ length: size - notes.length }, (_, i) => {
        const subjects = pick(random, SUBJECTS, 3);
        const title = `Sync ${notes.length + i + 1}`;
        return { id: randomUUID(), title, subjects, text: noteText(random, subjects, 20) };
      });
      for (let i = 0; i < added.length; i += LOAD_BATCH) {
        const batch = added.slice(i, i + LOAD_BATCH);
        await forEachLimited(batch, STORE_CONCURRENCY, (note) =>
          storeTranscribedNote(services, account, note),
        );
        await index.load(
          account,
          batch.map((note) => ({
            noteId: note.id,
            document: termFrequencies(`${note.title}\n${note.text}`),
          })),
        );
        process.stderr.write(`\r  ${notes.length + i + batch.length}/${size} notes stored and indexed`);
      }
      process.stderr.write('\n');
      notes.push(...added);
      const seedSeconds = (performance.now() - started) / 1000;

      const time = async (path: string) => {
        const begun = performance.now();
        const response = await call(runtime.apiUrl, apiKey, 'GET', path);
        const elapsed = performance.now() - begun;
        if (response.status !== 200)
          throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return { elapsed, body: response.body };
      };
      const search = (q: string) => time(`/v1/search?${new URLSearchParams({ q, limit: '10' })}`);
      const twoWords: number[] = [];
      const phrases: number[] = [];
      const common: number[] = [];
      const baseline: number[] = [];
      let topHits = 0;
      for (let q = 0; q < QUERIES; q++) {
        const target = notes[Math.floor(random() * notes.length)] ?? notes[0];
        if (!target) break;
        const [a, b] = target.subjects;
        const found = await search(`${a} ${b}`);
        twoWords.push(found.elapsed);
        const results = found.body.results as { note: { note_id: string } }[];
        // Several notes can share both words; any of them first is a right answer.
        const first = notes.find((note) => note.id === results[0]?.note.note_id);
        if (first && a && b && first.subjects.includes(a) && first.subjects.includes(b)) topHits++;
        phrases.push((await search(`"${PHRASES[q % PHRASES.length]}" ${a}`)).elapsed);
        common.push((await search(COMMON_WORD)).elapsed);
        baseline.push((await time(`/v1/notes/${target.id}`)).elapsed);
      }
      rows.push({
        notes: size,
        seed_seconds: round(seedSeconds),
        two_words_ms: percentiles(twoWords),
        phrase_ms: percentiles(phrases),
        common_word_ms: percentiles(common),
        baseline_get_note_ms: percentiles(baseline),
        top_hit_rate: round(topHits / QUERIES),
      });
      console.log(searchTable(rows));
    }
    return rows;
  } finally {
    await runtime.stop();
  }
}

export function searchTable(rows: SearchBenchRow[]): string {
  const ms = (t: Timing) => `${t.p50} / ${t.p95}`;
  return [
    '| notes | two words p50 / p95 (ms) | quoted phrase + word | common word | getNote (baseline) | two words p50 ÷ getNote p50 | right note first | seeding (s) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.notes.toLocaleString('en')} | ${ms(row.two_words_ms)} | ${ms(row.phrase_ms)} | ${ms(row.common_word_ms)} | ${ms(row.baseline_get_note_ms)} | ${round(row.two_words_ms.p50 / row.baseline_get_note_ms.p50)} | ${Math.round(row.top_hit_rate * 100)} % | ${row.seed_seconds} |`,
    ),
  ].join('\n');
}

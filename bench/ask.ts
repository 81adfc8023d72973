/**
 * Ask with 1,000 notes of transcript text in the local store: the cost of adding a note to the index
 * and of taking it out, and Ask latency (p50/p95) over HTTP, next to getCurrentAccount (one key check,
 * the floor of any API call) measured in the same run. Also: Insights for a 10-minute transcript with
 * the local extractive engine.
 */
import { randomUUID } from 'node:crypto';
import { ExtractiveInsightsEngine } from '../src/adapters/extractive/engine.ts';
import { syncNoteIndex } from '../src/domain/note-index.ts';
import { termFrequencies } from '../src/domain/search-terms.ts';
import { syntheticTranscription } from '../test/fixtures/insights/synthetic.ts';
import { storeTranscribedNote } from '../test/support/stored-notes.ts';
import { startInProcessRuntime } from './in-process.ts';

export { storeTranscribedNote };

const NOTES = 1_000;
const QUESTIONS = 200;
const REMOVALS = 50;
const SEED_CONCURRENCY = 4;

/** Subject words: each note is about three of them, so a question naming two finds few notes. */
export const SUBJECTS = `harbor lantern orchard glacier pepper canyon violin meadow compass anchor falcon
quartz ribbon saddle tunnel walnut bicycle cactus dolphin ember fossil granite hammock igloo jasmine
kettle lagoon marble nectar oyster pebble quilt raven sapphire thimble umbrella velvet willow yacht
zephyr almond beacon cobalt dune emerald ferry geyser hazel ivory juniper kiosk lemon mango nutmeg
olive parrot quiver reef sequoia tulip urchin vanilla wharf yarrow badger cinder dahlia easel fjord
gondola heron iris jackal kayak lilac mosaic nickel opal plume quince rattan sierra thistle tundra
vortex walrus yodel zinnia atlas bramble crater drizzle ferret gazebo hatchet inkwell jigsaw kelp
locket mitten nozzle obelisk paddle rosin satchel trellis utensil valley waffle bonsai cricket
domino feather goblet hornet icicle jewel kennel ladle magnet napkin`
  .split(/\s+/)
  .filter(Boolean);
const FILLER = `budget schedule team customer report meeting plan project review update release
design vendor contract feedback roadmap pricing support training office travel invoice`
  .split(/\s+/)
  .filter(Boolean);
const TEMPLATES = [
  'we talked about the {s} and how it affects the {f}',
  'the {s} needs a new {f} before the end of the month',
  'I think the {s} is fine but the {f} still worries me',
  'we decided to move the {s} to the {f} next week',
  'can someone check the {s} with the {f} team',
  'the {f} went up because of the {s}',
  'let us keep the {s} and drop the {f} for now',
  'the {s} looks good to me',
];

export interface AskBenchResult {
  notes: number;
  words_per_note: number;
  index_add_ms: { p50: number; p95: number; mean: number };
  postings_per_note: number;
  index_remove_ms: { p50: number; p95: number };
  index_10min_ms: { p50: number; p95: number; terms: number };
  seed_seconds: number;
  ask_ms: { p50: number; p95: number; max: number };
  ask_hit_rate: number;
  baseline_get_account_ms: { p50: number; p95: number };
  ask_p50_ratio: number;
  insights_10min_ms: { p50: number; min: number; segments: number };
}

export async function askBench(): Promise<AskBenchResult> {
  const runtime = await startInProcessRuntime('ask');
  try {
    const { apiKey, services } = runtime;
    const account = (await call(runtime.apiUrl, apiKey, 'GET', '/v1/account')).body.account_id as string;
    const random = seeded(42);

    const notes = Array.from({ length: NOTES }, (_, index) => {
      const subjects = pick(random, SUBJECTS, 3);
      return { id: randomUUID(), title: `Sync ${index + 1}`, subjects, text: noteText(random, subjects) };
    });
    const addTimes: number[] = [];
    let postings = 0;
    const seedStart = performance.now();
    for (let i = 0; i < notes.length; i += SEED_CONCURRENCY) {
      await Promise.all(
        notes.slice(i, i + SEED_CONCURRENCY).map(async (note) => {
          await storeTranscribedNote(services, account, note);
          const started = performance.now();
          await syncNoteIndex(services, account, note.id);
          addTimes.push(performance.now() - started);
          postings += termFrequencies(`${note.title}\n${note.text}`).terms.size;
        }),
      );
      if ((i / SEED_CONCURRENCY) % 50 === 0) process.stderr.write(`\r  indexed ${i}/${NOTES}`);
    }
    process.stderr.write(`\r  indexed ${NOTES}/${NOTES}\n`);
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const askTimes: number[] = [];
    const baseTimes: number[] = [];
    let hits = 0;
    for (let q = 0; q < QUESTIONS; q++) {
      const target = notes[Math.floor(random() * notes.length)] ?? notes[0];
      if (!target) break;
      const [a, b] = target.subjects;
      const question = `What did we say about the ${a} and the ${b}?`;
      let started = performance.now();
      const answer = await call(runtime.apiUrl, apiKey, 'POST', '/v1/ask', { question });
      askTimes.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`ask: ${answer.status} ${JSON.stringify(answer.body)}`);
      if ((answer.body.note_ids as string[]).includes(target.id)) hits++;
      started = performance.now();
      await call(runtime.apiUrl, apiKey, 'GET', '/v1/account');
      baseTimes.push(performance.now() - started);
    }

    // A 10-minute transcript: ~1,500 words, several hundred distinct terms.
    const longTimes: number[] = [];
    let longTerms = 0;
    for (let i = 0; i < 10; i++) {
      const note = {
        id: randomUUID(),
        title: `Long ${i}`,
        text: noteText(random, pick(random, SUBJECTS, 3), 1_200),
      };
      await storeTranscribedNote(services, account, note);
      longTerms = termFrequencies(`${note.title}\n${note.text}`).terms.size;
      const started = performance.now();
      await syncNoteIndex(services, account, note.id);
      longTimes.push(performance.now() - started);
    }

    const removeTimes: number[] = [];
    for (const note of notes.slice(0, REMOVALS)) {
      const started = performance.now();
      await services.search.remove(account, note.id);
      removeTimes.push(performance.now() - started);
    }

    const ask = percentiles(askTimes);
    const base = percentiles(baseTimes);
    return {
      notes: NOTES,
      words_per_note: Math.round(notes.reduce((sum, n) => sum + n.text.split(/\s+/).length, 0) / NOTES),
      index_add_ms: {
        ...percentiles(addTimes),
        mean: round(addTimes.reduce((s, t) => s + t, 0) / addTimes.length),
      },
      postings_per_note: Math.round(postings / NOTES),
      index_remove_ms: percentiles(removeTimes),
      index_10min_ms: { ...percentiles(longTimes), terms: longTerms },
      seed_seconds: round(seedSeconds),
      ask_ms: { ...ask, max: round(Math.max(...askTimes)) },
      ask_hit_rate: round(hits / QUESTIONS),
      baseline_get_account_ms: base,
      ask_p50_ratio: round(ask.p50 / base.p50),
      insights_10min_ms: await insightsTiming(),
    };
  } finally {
    await runtime.stop();
  }
}

export function askTable(result: AskBenchResult): string {
  return [
    `| measure | value |`,
    `|---|---|`,
    `| notes in the index | ${result.notes} (~${result.words_per_note} words each) |`,
    `| index entries per note (distinct terms) | ${result.postings_per_note} |`,
    `| index a note (syncNoteIndex) | p50 ${result.index_add_ms.p50} ms, p95 ${result.index_add_ms.p95} ms, mean ${result.index_add_ms.mean} ms |`,
    `| index a 10-minute transcript (~${result.index_10min_ms.terms} distinct terms) | p50 ${result.index_10min_ms.p50} ms, p95 ${result.index_10min_ms.p95} ms |`,
    `| remove a note from the index | p50 ${result.index_remove_ms.p50} ms, p95 ${result.index_remove_ms.p95} ms |`,
    `| seeding 1,000 notes (store + index, 4 at a time) | ${result.seed_seconds} s |`,
    `| Ask over HTTP (local extractive answer) | p50 ${result.ask_ms.p50} ms, p95 ${result.ask_ms.p95} ms, max ${result.ask_ms.max} ms |`,
    `| getCurrentAccount (baseline, same run) | p50 ${result.baseline_get_account_ms.p50} ms, p95 ${result.baseline_get_account_ms.p95} ms |`,
    `| Ask p50 / baseline p50 | ${result.ask_p50_ratio} |`,
    `| questions whose note was among the supporting notes | ${Math.round(result.ask_hit_rate * 100)} % |`,
    `| Insights, 10-minute transcript (${result.insights_10min_ms.segments} segments, extractive) | p50 ${result.insights_10min_ms.p50} ms, min ${result.insights_10min_ms.min} ms |`,
  ].join('\n');
}

async function insightsTiming(): Promise<{ p50: number; min: number; segments: number }> {
  const transcription = syntheticTranscription(10);
  const engine = new ExtractiveInsightsEngine();
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    await engine.generateInsights({ transcription, title: 'Bench', reference_time: Date.now() });
    times.push(performance.now() - started);
  }
  return {
    ...percentiles(times),
    min: round(Math.min(...times)),
    segments: transcription.conversation_segments.length,
  };
}

/**
 * Pseudo-words ("kelavo", "tumirsa"): spoken notes use hundreds of distinct words, and the number of
 * distinct terms is what indexing costs; the subject words carry the meaning the questions look for.
 */
function pseudoWord(random: () => number): string {
  const syllables = ['ka', 'lo', 'mi', 'ra', 'tu', 've', 'sa', 'no', 'di', 'pe', 'zu', 'go', 'ri', 'ba'];
  const count = 2 + Math.floor(random() * 3);
  return Array.from({ length: count }, () => syllables[Math.floor(random() * syllables.length)]).join('');
}

const VOCABULARY_SIZE = 20_000;

export function noteText(random: () => number, subjects: string[], extraWords = 60): string {
  const sentences: string[] = [];
  // The same seed gives the same vocabulary; notes draw from it with a skew towards common words.
  const vocabulary = vocabularyOf(seeded(7));
  for (let i = 0; i < extraWords; i += 10) {
    const words = Array.from({ length: 10 }, () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]);
    sentences.push(`we also mentioned ${words.join(' ')}`);
  }
  for (let i = 0; i < 24; i++) {
    const template = TEMPLATES[Math.floor(random() * TEMPLATES.length)] ?? '';
    const subject = subjects[i % subjects.length] ?? '';
    const filler = FILLER[Math.floor(random() * FILLER.length)] ?? '';
    sentences.push(template.replace('{s}', subject).replace('{f}', filler));
  }
  return sentences.join(' ');
}

let cachedVocabulary: string[] | undefined;
function vocabularyOf(random: () => number): string[] {
  cachedVocabulary ??= Array.from({ length: VOCABULARY_SIZE }, () => pseudoWord(random));
  return cachedVocabulary;
}

export async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export function pick<T>(random: () => number, items: T[], count: number): T[] {
  const chosen = new Set<T>();
  while (chosen.size < count) chosen.add(items[Math.floor(random() * items.length)] as T);
  return [...chosen];
}

/** mulberry32: a small deterministic generator, so every run asks the same questions. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function percentiles(values: number[]): { p50: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: round(at(0.5)), p95: round(at(0.95)) };
}

export function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Leave-one-source-out evaluation of the local diarizer. Every conversation (voice mixes of
 * test/fixtures/real-voices/mixes.ts, the five real-voice fixtures, the flite conversations) is
 * analysed once; then, for each source (a Debian package or voice family), the diarizer's free
 * parameters are chosen on the conversations without that source and measured on those with it.
 * The worst fold is what counts. Diarization only: attribution is time-based (each phrase of the
 * reference, by its exact span, takes the speaker the diarizer gives most of that span).
 * Run: npm run bench -- diarization-loso   (a few minutes; prints tables, no audio or text).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assignSpeakers } from '../src/adapters/speech/diarization/assign.ts';
import { DEFAULT_TUNING, Diarizer, type DiarizerTuning } from '../src/adapters/speech/diarization/diarize.ts';
import { diarizationErrorRate, wordAttribution } from '../src/adapters/speech/diarization/metrics.ts';
import type { SpeakerTurn } from '../src/adapters/speech/diarization/types.ts';
import { decodeToPcm } from '../src/adapters/speech/ffmpeg.ts';
import { ensureConversations } from '../test/fixtures/conversations/generate.ts';
import { ensureRealVoices } from '../test/fixtures/real-voices/generate.ts';
import { BENCH_MIXES, ensureMixes } from '../test/fixtures/real-voices/mixes.ts';
import { SOURCES, type Source } from '../test/fixtures/real-voices/voices.ts';

/** Values tried for each free parameter of the diarizer (the grid is their product). */
export const TUNING_GRID: { [K in keyof DiarizerTuning]: number[] } = {
  overclusterSpreads: [1.2, 1.3, 1.4, 1.5, 1.6],
  bicPenaltyWeight: [3, 4, 6, 8],
};

interface Unit {
  start_ms: number;
  end_ms: number;
  speaker: string;
}

export interface BenchConversation {
  name: string;
  sources: Source[];
  duration_s: number;
  speakers: number;
  reference: Unit[];
  /** Phrases with exact spans (or whole turns where the fixture has no phrase list). */
  units: Unit[];
  diarizer: Diarizer;
  analysis_s: number;
}

export interface Outcome {
  found: number;
  expected: number;
  der: number;
  attribution: number;
}

const LEGACY_SOURCES: Record<string, Source> = { reader: 'librivox', cards: 'cards', alsa: 'alsa' };

export async function loadConversations(): Promise<BenchConversation[]> {
  const mixes = await ensureMixes(BENCH_MIXES);
  const real = await ensureRealVoices();
  const flite = await ensureConversations();
  const all = [
    ...mixes.map((m) => ({
      name: m.name,
      audio: m.audio,
      truth: m.truth,
      sources: m.truth.sources,
      units: m.truth.phrases,
    })),
    ...real.map((f) => ({
      name: f.name,
      audio: f.audio,
      truth: f.truth,
      sources: [...new Set(f.truth.speakers.map((s) => LEGACY_SOURCES[s] ?? 'librivox'))],
      units: f.truth.turns,
    })),
    ...flite.map((f) => ({
      name: f.name,
      audio: f.audio,
      truth: f.truth,
      sources: ['flite' as Source],
      units: f.truth.turns,
    })),
  ];
  const out: BenchConversation[] = [];
  for (const item of all) {
    const started = performance.now();
    const diarizer = await analysed(item.audio);
    out.push({
      name: item.name,
      sources: item.sources,
      duration_s: item.truth.duration_ms / 1000,
      speakers: item.truth.speakers.length,
      reference: item.truth.turns,
      units: item.units,
      diarizer,
      analysis_s: (performance.now() - started) / 1000,
    });
  }
  return out;
}

async function analysed(audio: string): Promise<Diarizer> {
  const decoding = decodeToPcm(audio);
  const diarizer = new Diarizer();
  for await (const chunk of decoding.pcm) diarizer.push(chunk as Buffer);
  await decoding.done;
  diarizer.complete();
  return diarizer;
}

export function score(conversation: BenchConversation, turns: SpeakerTurn[]): Outcome {
  const attributed = assignSpeakers(
    conversation.units.map((unit) => ({ text: '', start_ms: unit.start_ms, end_ms: unit.end_ms })),
    turns,
  );
  return {
    found: new Set(turns.map((turn) => turn.speaker)).size,
    expected: conversation.speakers,
    der: diarizationErrorRate(conversation.reference, turns).der,
    attribution: wordAttribution(attributed, conversation.units).share,
  };
}

export function tuningGrid(): DiarizerTuning[] {
  let grid: Partial<DiarizerTuning>[] = [{}];
  for (const [key, values] of Object.entries(TUNING_GRID) as [keyof DiarizerTuning, number[]][])
    grid = grid.flatMap((partial) => values.map((value) => ({ ...partial, [key]: value })));
  return grid as DiarizerTuning[];
}

/** Lower is better: wrong speaker counts first, then mean DER. */
function loss(outcomes: readonly Outcome[]): number {
  const wrong = outcomes.filter((o) => o.found !== o.expected).length;
  const der = outcomes.reduce((sum, o) => sum + o.der, 0) / Math.max(1, outcomes.length);
  return wrong + der;
}

export interface Fold {
  source: Source;
  tuning: DiarizerTuning;
  trained_on: number;
  /** Each held-out conversation without a hint, and with `speakers_expected` set to its true count. */
  held_out: { name: string; outcome: Outcome; hinted: Outcome }[];
}

export function leaveOneSourceOut(conversations: readonly BenchConversation[]): Fold[] {
  const grid = tuningGrid();
  const results = conversations.map((c) =>
    grid.map((tuning) => score(c, c.diarizer.decide(undefined, tuning))),
  );
  return SOURCES.map((source) => {
    const train = conversations.flatMap((c, i) => (c.sources.includes(source) ? [] : [i]));
    const test = conversations.flatMap((c, i) => (c.sources.includes(source) ? [i] : []));
    let best = 0;
    grid.forEach((_, g) => {
      const here = loss(train.map((i) => results[i]?.[g] as Outcome));
      if (here < loss(train.map((i) => results[i]?.[best] as Outcome)) - 1e-9) best = g;
    });
    return {
      source,
      tuning: grid[best] as DiarizerTuning,
      trained_on: train.length,
      held_out: test.map((i) => {
        const conversation = conversations[i] as BenchConversation;
        const tuning = grid[best] as DiarizerTuning;
        return {
          name: conversation.name,
          outcome: results[i]?.[best] as Outcome,
          hinted: score(conversation, conversation.diarizer.decide(conversation.speakers, tuning)),
        };
      }),
    };
  });
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const table = (header: string[], rows: string[][]) =>
  [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

export interface FoldSummary {
  source: Source;
  right: number;
  held_out: number;
  mean_der: number;
  worst_der: number;
  attribution: number;
  /** With the hint: conversations given exactly the hinted count, mean DER, phrases on the right speaker. */
  hinted_exact: number;
  hinted_mean_der: number;
  hinted_attribution: number;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

export function summarise(fold: Fold): FoldSummary {
  const outcomes = fold.held_out.map((h) => h.outcome);
  const hinted = fold.held_out.map((h) => h.hinted);
  return {
    source: fold.source,
    right: outcomes.filter((o) => o.found === o.expected).length,
    held_out: outcomes.length,
    mean_der: mean(outcomes.map((o) => o.der)),
    worst_der: Math.max(0, ...outcomes.map((o) => o.der)),
    attribution: mean(outcomes.map((o) => o.attribution)),
    hinted_exact: hinted.filter((o) => o.found === o.expected).length,
    hinted_mean_der: mean(hinted.map((o) => o.der)),
    hinted_attribution: mean(hinted.map((o) => o.attribution)),
  };
}

/** The worst fold: the smallest share of right speaker counts, then the highest mean DER. */
export function worstFold(summaries: readonly FoldSummary[]): FoldSummary | undefined {
  return [...summaries].sort(
    (a, b) => a.right / a.held_out - b.right / b.held_out || b.mean_der - a.mean_der,
  )[0];
}

export async function main(): Promise<FoldSummary | undefined> {
  const conversations = await loadConversations();
  const shipped = conversations.map((c) => {
    const started = performance.now();
    const outcome = score(c, c.diarizer.decide(undefined, DEFAULT_TUNING));
    const rtf = (c.analysis_s + (performance.now() - started) / 1000) / c.duration_s;
    const hinted = score(c, c.diarizer.decide(c.speakers, DEFAULT_TUNING));
    return { c, outcome, rtf, hinted };
  });
  console.log('Diarization with the shipped settings, and with speakers_expected set to the true count\n');
  console.log(
    table(
      [
        'conversation',
        'sources',
        'duration',
        'found/expected',
        'DER',
        'phrases on right speaker',
        'RTF',
        'hinted: found',
        'hinted: DER',
      ],
      shipped.map(({ c, outcome, rtf, hinted }) => [
        c.name,
        c.sources.join(' '),
        `${c.duration_s.toFixed(0)} s`,
        `${outcome.found}/${outcome.expected}`,
        percent(outcome.der),
        percent(outcome.attribution),
        rtf.toFixed(3),
        `${hinted.found}`,
        percent(hinted.der),
      ]),
    ),
  );
  const right = shipped.filter((s) => s.outcome.found === s.outcome.expected).length;
  const hintObeyed = shipped.filter((s) => s.hinted.found === s.c.speakers).length;
  console.log(
    `\nSpeaker count right: ${right}/${shipped.length}; hint obeyed exactly: ${hintObeyed}/${shipped.length}`,
  );

  const folds = leaveOneSourceOut(conversations);
  const summaries = folds.map(summarise);
  console.log('\nLeave one source out: parameters chosen on the other sources, measured on this one\n');
  console.log(
    table(
      [
        'held-out source',
        'conversations',
        'speakers right',
        'mean DER',
        'worst DER',
        'phrases on right speaker',
        'hinted: exact count',
        'hinted: mean DER',
        'hinted: phrases on right speaker',
        'chosen on others',
      ],
      folds.map((fold, i) => {
        const s = summaries[i] as FoldSummary;
        return [
          fold.source,
          `${s.held_out} (trained on ${fold.trained_on})`,
          `${s.right}/${s.held_out}`,
          percent(s.mean_der),
          percent(s.worst_der),
          percent(s.attribution),
          `${s.hinted_exact}/${s.held_out}`,
          percent(s.hinted_mean_der),
          percent(s.hinted_attribution),
          Object.entries(fold.tuning)
            .map(([key, value]) => `${key} ${value}`)
            .join(', '),
        ];
      }),
    ),
  );
  for (const fold of folds)
    for (const { name, outcome } of fold.held_out)
      if (outcome.found !== outcome.expected)
        console.log(
          `  ${fold.source}: ${name} ${outcome.found}/${outcome.expected}, DER ${percent(outcome.der)}`,
        );
  const worst = worstFold(summaries);
  if (worst)
    console.log(
      `\nWorst fold: ${worst.source}, speakers right ${worst.right}/${worst.held_out}, mean DER ${percent(worst.mean_der)}, worst DER ${percent(worst.worst_der)}, phrases on right speaker ${percent(worst.attribution)}`,
    );
  return worst;
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) await main();

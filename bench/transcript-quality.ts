/**
 * Transcript quality of the local engine: the real recogniser (pocketsphinx) plus diarization, scored
 * against the ground truth of two fixture families side by side: flite conversations (synthetic
 * voices) and real human voices (Debian recordings, test/fixtures/real-voices/).
 * Then the diarizer's leave-one-source-out folds (diarization-loso.ts), on voices it was not tuned on.
 * Run: npm run bench -- quality   (prints tables; no transcript text or audio is logged).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assignSpeakers } from '../src/adapters/speech/diarization/assign.ts';
import { diarizeFile } from '../src/adapters/speech/diarization/diarize-file.ts';
import {
  diarizationErrorRate,
  wordAttribution,
  wordErrorRate,
} from '../src/adapters/speech/diarization/metrics.ts';
import type { SpeakerTurn } from '../src/adapters/speech/diarization/types.ts';
import { PocketsphinxSpeechToText } from '../src/adapters/speech/pocketsphinx.ts';
import type { RecognizedWord } from '../src/ports/speech-to-text.ts';
import { type ConversationFixture, ensureConversations } from '../test/fixtures/conversations/generate.ts';
import { ensureRealVoices } from '../test/fixtures/real-voices/generate.ts';
import { type FoldSummary, main as leaveOneSourceOutReport } from './diarization-loso.ts';

export interface QualityRow {
  fixture: string;
  duration_s: number;
  /** Undefined when recognition was skipped. */
  wer?: number;
  der: number;
  /** DER with no collar: boundary precision included. */
  der_no_collar: number;
  word_attribution?: number;
  speakers_found: number;
  speakers_expected: number;
  rtf_recognition?: number;
  rtf_diarization: number;
}

export interface EvaluateOptions {
  /** Skip the recogniser (WER and word attribution stay undefined). */
  recognise?: boolean;
  /** Passed to diarizeFile as the user's hint. */
  speakersExpected?: number;
}

export interface Evaluation {
  row: QualityRow;
  turns: SpeakerTurn[];
  words?: RecognizedWord[];
}

export async function evaluateConversation(
  fixture: ConversationFixture,
  options: EvaluateOptions = {},
): Promise<Evaluation> {
  const { truth } = fixture;
  const seconds = truth.duration_ms / 1000;
  let words: RecognizedWord[] | undefined;
  let recognitionSeconds: number | undefined;
  if (options.recognise !== false) {
    const started = performance.now();
    const result = await new PocketsphinxSpeechToText().transcribe(fixture.audio);
    recognitionSeconds = (performance.now() - started) / 1000;
    words = result.words;
  }
  const started = performance.now();
  const turns = await diarizeFile(
    fixture.audio,
    options.speakersExpected !== undefined ? { speakersExpected: options.speakersExpected } : {},
  );
  const diarizationSeconds = (performance.now() - started) / 1000;
  const attributed = words ? assignSpeakers(words, turns) : undefined;
  const reference = truth.turns.map((turn) => turn.text).join(' ');
  const row: QualityRow = {
    fixture: fixture.name,
    duration_s: seconds,
    der: diarizationErrorRate(truth.turns, turns).der,
    der_no_collar: diarizationErrorRate(truth.turns, turns, 0).der,
    speakers_found: new Set(turns.map((turn) => turn.speaker)).size,
    speakers_expected: truth.speakers.length,
    rtf_diarization: diarizationSeconds / seconds,
  };
  if (attributed && recognitionSeconds !== undefined) {
    row.wer = wordErrorRate(reference, attributed.map((word) => word.text).join(' '));
    row.word_attribution = wordAttribution(attributed, truth.turns).share;
    row.rtf_recognition = recognitionSeconds / seconds;
  }
  return attributed ? { row, turns, words: attributed } : { row, turns };
}

export function qualityTable(rows: readonly QualityRow[]): string {
  const percent = (value: number | undefined) =>
    value === undefined ? '-' : `${(value * 100).toFixed(1)} %`;
  const fixed = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(3));
  const header = [
    'fixture',
    'duration',
    'WER',
    'DER (250 ms collar)',
    'DER (no collar)',
    'words on right speaker',
    'speakers found/expected',
    'RTF recognition',
    'RTF diarization',
  ];
  const lines = rows.map((row) => [
    row.fixture,
    `${row.duration_s.toFixed(1)} s`,
    percent(row.wer),
    percent(row.der),
    percent(row.der_no_collar),
    percent(row.word_attribution),
    `${row.speakers_found}/${row.speakers_expected}`,
    fixed(row.rtf_recognition),
    fixed(row.rtf_diarization),
  ]);
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export async function main(): Promise<{ rows: QualityRow[]; worst_fold: FoldSummary | undefined }> {
  const fixtures = [...(await ensureConversations()), ...(await ensureRealVoices())];
  const rows: QualityRow[] = [];
  // One at a time: the RTFs are per file on an otherwise idle core, not shared with a neighbour.
  for (const fixture of fixtures) rows.push((await evaluateConversation(fixture)).row);
  console.log('Transcript quality: flite conversations and real voices (pocketsphinx + local diarization)\n');
  console.log(qualityTable(rows));
  console.log(`\n${speakerCountSummary(rows)}`);
  const hinted: QualityRow[] = [];
  for (const fixture of fixtures.filter((f) => f.truth.speakers.length > 1))
    hinted.push(
      (
        await evaluateConversation(fixture, {
          recognise: false,
          speakersExpected: fixture.truth.speakers.length,
        })
      ).row,
    );
  console.log('\nWith speakers_expected given (diarization only)\n');
  console.log(qualityTable(hinted));
  const peakMiB = process.resourceUsage().maxRSS / 1024;
  console.log(`\nPeak RSS of this process: ${peakMiB.toFixed(0)} MiB`);
  console.log('\nHeld-out voices: the diarizer on voices it was not tuned on (bench/diarization-loso.ts)\n');
  return { rows, worst_fold: await leaveOneSourceOutReport() };
}

/** Speaker-count accuracy per family: real-voice fixtures are named `real-...`. */
export function speakerCountSummary(rows: readonly QualityRow[]): string {
  const families = [
    { label: 'flite', rows: rows.filter((row) => !row.fixture.startsWith('real-')) },
    { label: 'real voices', rows: rows.filter((row) => row.fixture.startsWith('real-')) },
  ];
  return families
    .map(({ label, rows: family }) => {
      const right = family.filter((row) => row.speakers_found === row.speakers_expected).length;
      return `Speaker count right (${label}): ${right}/${family.length}`;
    })
    .join('\n');
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) await main();

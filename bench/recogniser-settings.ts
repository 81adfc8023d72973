/**
 * The recogniser's tuning sweep: word error rate and CPU cost of pocketsphinx decoder settings on real
 * speech (the TUNING set of test/fixtures/real-speech.ts), with the held-out real speech and a flite
 * recording beside it as checks that are never used to choose.
 * Run: `npm run bench -- recogniser` or `npx tsx bench/recogniser-settings.ts [name ...]`.
 * Prints a table; no transcript text or audio is logged.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { wordErrorRate } from '../src/adapters/speech/diarization/metrics.ts';
import { DEFAULT_DECODER_ARGS, PocketsphinxSpeechToText } from '../src/adapters/speech/pocketsphinx.ts';
import { ensureConversations } from '../test/fixtures/conversations/generate.ts';
import {
  HELD_OUT,
  type RealSpeechRecording,
  realSpeechRecording,
  TUNING,
} from '../test/fixtures/real-speech.ts';

export interface Setting {
  name: string;
  args: readonly string[];
}

/** Candidates: search passes and their language weights, Gaussians scored, beams, penalties, front end. */
export const SETTINGS: readonly Setting[] = [
  { name: 'pocketsphinx defaults', args: [] },
  { name: '-lw 5 (the default before this tuning)', args: ['-lw', '5'] },
  { name: '-lw 10', args: ['-lw', '10'] },
  { name: '-bestpathlw 6.5', args: ['-bestpathlw', '6.5'] },
  { name: '-bestpath no -fwdflatlw 6.5', args: ['-bestpath', 'no', '-fwdflatlw', '6.5'] },
  { name: '-fwdflat no', args: ['-fwdflat', 'no'] },
  { name: '-wip 0.2', args: ['-wip', '0.2'] },
  { name: '-wip 2', args: ['-wip', '2'] },
  { name: '-pip 0.5', args: ['-pip', '0.5'] },
  { name: '-silprob 0.1', args: ['-silprob', '0.1'] },
  { name: '-topn 2', args: ['-topn', '2'] },
  { name: '-topn 6', args: ['-topn', '6'] },
  { name: '-topn 8', args: ['-topn', '8'] },
  { name: '-topn 16', args: ['-topn', '16'] },
  { name: '-topn 8 -maxhmmpf 10000', args: ['-topn', '8', '-maxhmmpf', '10000'] },
  { name: '-topn 8 -fwdflat no', args: ['-topn', '8', '-fwdflat', 'no'] },
  { name: '-maxhmmpf 10000', args: ['-maxhmmpf', '10000'] },
  { name: 'wide beams', args: ['-beam', '1e-60', '-wbeam', '1e-40', '-pbeam', '1e-60'] },
  { name: '-cmn live', args: ['-cmn', 'live'] },
  { name: '-remove_noise no', args: ['-remove_noise', 'no'] },
  { name: '-vad_postspeech 100', args: ['-vad_postspeech', '100'] },
];

export interface SweepRow {
  setting: string;
  /** The settings `PocketsphinxSpeechToText` uses when given none. */
  is_default: boolean;
  wer_tuning: number;
  cpu_rtf_tuning: number;
  wer_held_out: number;
  wer_flite: number;
  cpu_rtf_flite: number;
}

export interface Scored {
  wer: number;
  /** CPU seconds of ffmpeg + pocketsphinx per second of audio: one core's real-time factor. */
  cpuRtf: number;
}

/** Transcribes `recording` with `args` on one recogniser and scores it against its reference. */
export async function scoreSetting(args: readonly string[], recording: RealSpeechRecording): Promise<Scored> {
  const engine = new PocketsphinxSpeechToText({ decoderArgs: args, concurrency: 1 });
  const before = childCpuSeconds();
  const result = await engine.transcribe(recording.audio);
  const cpu = childCpuSeconds() - before;
  const hypothesis = result.words.map((word) => word.text).join(' ');
  return { wer: wordErrorRate(recording.reference, hypothesis), cpuRtf: cpu / recording.duration_s };
}

/**
 * CPU time of this process's finished children (fields cutime + cstime of /proc/self/stat), which
 * includes ffmpeg and pocketsphinx once they have exited: unlike wall time, it is not inflated by
 * other work sharing the cores. Linux only; clock ticks are 1/100 s.
 */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so cutime (16) and cstime (17) are at indexes 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

export async function sweep(settings: readonly Setting[] = SETTINGS): Promise<SweepRow[]> {
  const tuning = await realSpeechRecording('tuning', TUNING);
  const heldOut = await realSpeechRecording('held-out', HELD_OUT);
  const flite = await fliteRecording();
  const rows: SweepRow[] = [];
  // One at a time, so each setting has a core to itself as far as this process is concerned.
  for (const setting of settings) {
    const onTuning = await scoreSetting(setting.args, tuning);
    const onHeldOut = await scoreSetting(setting.args, heldOut);
    const onFlite = await scoreSetting(setting.args, flite);
    rows.push({
      setting: setting.name,
      is_default: setting.args.join(' ') === DEFAULT_DECODER_ARGS.join(' '),
      wer_tuning: onTuning.wer,
      cpu_rtf_tuning: onTuning.cpuRtf,
      wer_held_out: onHeldOut.wer,
      wer_flite: onFlite.wer,
      cpu_rtf_flite: onFlite.cpuRtf,
    });
    console.error(`  done: ${setting.name}`);
  }
  return rows;
}

/** The single-speaker flite conversation (about 32 s, slt), scored on its script. */
async function fliteRecording(): Promise<RealSpeechRecording> {
  const fixture = (await ensureConversations()).find((candidate) => candidate.name === 'single-speaker');
  if (!fixture) throw new Error('the single-speaker conversation fixture is missing');
  return {
    audio: fixture.audio,
    reference: fixture.truth.turns.map((turn) => turn.text).join(' '),
    duration_s: fixture.truth.duration_ms / 1000,
  };
}

export function sweepTable(rows: readonly SweepRow[]): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  const header = [
    'setting',
    'WER tuning (real)',
    'CPU-RTF tuning',
    'WER held-out (real)',
    'WER flite',
    'CPU-RTF flite',
  ];
  const lines = rows.map((row) => [
    row.is_default ? `**${row.setting}** (default)` : row.setting,
    percent(row.wer_tuning),
    row.cpu_rtf_tuning.toFixed(3),
    percent(row.wer_held_out),
    percent(row.wer_flite),
    row.cpu_rtf_flite.toFixed(3),
  ]);
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export async function main(names: readonly string[] = []): Promise<SweepRow[]> {
  const chosen = names.length > 0 ? SETTINGS.filter((setting) => names.includes(setting.name)) : SETTINGS;
  console.log(
    'Recogniser settings: WER on real speech (tuning set chooses; held-out and flite only check) and ' +
      'CPU seconds per audio second of ffmpeg + pocketsphinx (model load included)\n',
  );
  const rows = await sweep(chosen);
  console.log(sweepTable(rows));
  return rows;
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) await main(process.argv.slice(2));

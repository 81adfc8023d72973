/**
 * Long recordings through the local engine (issue 4): a looped flite recording of `--minutes` (default
 * 60) transcribed with 1 and 2 concurrent recognisers. Prints wall time, real-time factor, the Node
 * process's peak RSS and the peak RSS of its child processes (sampled from /proc every second).
 * Run: npx tsx bench/long-recording.ts [--minutes 20] [--concurrency 1,2]
 */
import { spawn } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { probeDurationMs } from '../src/adapters/speech/ffmpeg.ts';
import { PocketsphinxSpeechToText } from '../src/adapters/speech/pocketsphinx.ts';
import { ensureFixtures } from '../test/fixtures/generate.ts';
import { sampleProcessTree } from './process-tree.ts';
import { cliOption, loopRecording, OUT_DIR } from './support.ts';

export interface LongRecordingRun {
  concurrency: number;
  audio_seconds: number;
  wall_seconds: number;
  rtf: number;
  words: number;
  /** Peak resident memory of this Node process over its whole life (includes earlier runs). */
  node_max_rss_mb: number;
  /** Peak of the summed RSS of all descendants (ffmpeg, sh, cat, pocketsphinx) at one sample. */
  children_peak_rss_mb: number;
  /** Peak RSS of any single pocketsphinx process. */
  pocketsphinx_peak_rss_mb: number;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<LongRecordingRun[]> {
  const minutes = Number(cliOption(argv, '--minutes') ?? 60);
  const levels = (cliOption(argv, '--concurrency') ?? '1,2').split(',').map(Number);
  if (!(minutes > 0) || levels.some((level) => !(level >= 1))) throw new Error('bad --minutes/--concurrency');
  const file = await longRecording(minutes);
  const audioSeconds = ((await probeDurationMs(file)) ?? 0) / 1000;
  const runs: LongRecordingRun[] = [];
  for (const concurrency of levels) {
    // This process's descendants: their memory is where recognition happens.
    const sampler = sampleProcessTree(process.pid, 1000);
    const started = performance.now();
    let lastShown = -1;
    const result = await new PocketsphinxSpeechToText({ concurrency }).transcribe(file, (progress) => {
      const percent = Math.floor((progress.fraction ?? 0) * 10) * 10;
      if (percent > lastShown) {
        lastShown = percent;
        process.stderr.write(`  concurrency ${concurrency}: ${percent} %\n`);
      }
    });
    const wallSeconds = (performance.now() - started) / 1000;
    const peaks = await sampler.stop();
    const run: LongRecordingRun = {
      concurrency,
      audio_seconds: round(audioSeconds),
      wall_seconds: round(wallSeconds),
      rtf: round(wallSeconds / audioSeconds, 3),
      words: result.words.length,
      node_max_rss_mb: round(process.resourceUsage().maxRSS / 1024),
      children_peak_rss_mb: round(peaks.descendantsKb / 1024),
      pocketsphinx_peak_rss_mb: round(peaks.pocketsphinxKb / 1024),
    };
    console.log(JSON.stringify(run));
    runs.push(run);
  }
  return runs;
}

/** A third voice, so the loop is not only the test fixtures. */
const AWB_PASSAGE = [
  'The library will open an hour later on Tuesday while the heating system is repaired.',
  'Volunteers are still needed for the book sale next month, especially on Saturday morning.',
  'The children reading club meets every Wednesday after school in the small room upstairs.',
  'Please return borrowed laptops to the front desk before the end of the day.',
  'We thank everyone who donated old maps and photographs of the town for the local history project.',
].join(' ');

/** The fixtures' two voices plus a third, looped to `minutes`; cached, since it only depends on them. */
async function longRecording(minutes: number): Promise<string> {
  await mkdir(OUT_DIR, { recursive: true });
  const out = join(OUT_DIR, `long-${minutes}min.wav`);
  if (await exists(out)) return out;
  const fixtures = await ensureFixtures();
  const inputs = fixtures.speech.flatMap((fixture) => ['-i', fixture.wav]);
  const awb = join(OUT_DIR, 'long-awb.wav');
  await writeFile(`${awb}.txt`, AWB_PASSAGE);
  await run('flite', ['-voice', 'awb', '-f', `${awb}.txt`, '-o', awb]);
  inputs.push('-i', awb);
  const count = inputs.length / 2;
  const base = join(OUT_DIR, 'long-base.wav');
  const labels = Array.from({ length: count }, (_, i) => `[${i}:a]`).join('');
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', ...inputs],
    ...['-filter_complex', `${labels}concat=n=${count}:v=0:a=1`, '-ac', '1', '-ar', '16000', base],
  ]);
  return loopRecording(base, minutes, out);
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function run(program: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${program} exited with code ${code}`)),
    );
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}

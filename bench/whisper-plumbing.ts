/**
 * What the embedded Whisper's plumbing costs next to pocketsphinx, on the local runtime as `npm start`
 * runs it: one service per engine in turn (`NOTES_SPEECH_ENGINE=local`, then `whisper`), each given the
 * same clip (60 s; `--quick`: 20 s), a warm-up transcription (not measured), then `--rounds` rounds
 * (default 3; `--quick`: 1) of one recording alone and four at once (first submit to last completion),
 * as bench/throughput.ts measures them; the peak RSS of the service's process tree and of its largest
 * recogniser process, the recognisers' CPU per recording, and getNote p99 idle and while transcribing.
 *
 * The whisper service runs whisper.cpp (the prebuilt binding, in a `node whisper-process` child per
 * chunk) on test/support/whisper-test-model.ts's model: RANDOM weights, tiny layers, whisper's full
 * vocabulary and 30 s window. Its words are nonsense and its compute a small fraction of a real
 * model's: what it measures is the plumbing (decoding, process start, model load, the PCM handoff,
 * the result's mapping), not Whisper's speed or accuracy. A real base.en model costs far more CPU and
 * memory per recording, and none of that is measured here. Nor is the test model's time all plumbing:
 * its random decoder often fails whisper.cpp's quality checks on a 30 s window and decodes it again at
 * higher temperatures (measured by hand, whisper.cpp alone: the first 30 s of the 60 s clip took 9.9 s
 * as the service runs it, 1.4 s with `temperatureInc: 0`; the 20 s clip of `--quick` 0.75 s, 0.43 s).
 * Run: npx tsx bench/whisper-plumbing.ts [--quick] [--rounds N]
 */
import { randomUUID } from 'node:crypto';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { whisperTestModel } from '../test/support/whisper-test-model.ts';
import { getNoteProbe, type LatencySummary, sampleUntil, summarize } from './get-note-latency.ts';
import {
  isRecogniser,
  machineCpuSeconds,
  reapedChildrenCpuSecondsOf,
  sampleProcessTree,
  type TreePeaks,
} from './process-tree.ts';
import {
  cliOption,
  loopRecording,
  median,
  OUT_DIR,
  pollTranscription,
  type Service,
  startService,
  submitAndUpload,
} from './support.ts';
import { sixtySecondsOfSpeech } from './transcription-rtf.ts';

/**
 * Completion is seen at most this late. Shorter than throughput's 500 ms: a job on the test model
 * takes a few seconds, where half a second would be a large share of its wall time.
 */
const POLL_MS = 200;
/**
 * /proc sampling. A process's CPU after its last sample is missed (at most this per process): a
 * whisper.cpp process on the test model lives about a second, so sampled more often than throughput
 * does. The service's reaped children's CPU (cutime + cstime) is read besides, which misses nothing.
 */
const SAMPLE_MS = 100;
const AT_ONCE = 4;
const MAX_JOB_MS = 20 * 60_000;
const OUT_FILE = join(OUT_DIR, 'whisper-plumbing.json');

const ENGINES = ['pocketsphinx', 'whisper'] as const;
type Engine = (typeof ENGINES)[number];

export const TEST_MODEL_CAVEAT =
  'The whisper column used a RANDOM-WEIGHT test model (test/support/whisper-test-model.ts: tiny layers, ' +
  "whisper's vocabulary and 30 s window): it is there to measure the plumbing's overhead only (decode, process start, " +
  'model load, PCM handoff, result mapping). A real base.en model computes far more per recording; ' +
  "that compute is not measured here. Beware: the random model often fails whisper.cpp's own quality checks " +
  'and decodes a 30 s window again at higher temperatures (up to five more passes): ' +
  'measured by hand, the first 30 s of the 60 s clip took 9.9 s as the service runs it against 1.4 s with no ' +
  'retries (temperatureInc 0), the 20 s clip 0.75 s against 0.43 s. Whisper CPU and wall here include those ' +
  'retries, a cost of the random weights, not of the plumbing: the --quick (20 s) run is the nearer to plumbing alone.';

interface Phase {
  recordings: number;
  wall_seconds: number;
  /** Most recogniser processes (pocketsphinx, or whisper.cpp's `node whisper-process`) at one sample. */
  recognisers_at_once: number;
  /** CPU of the recogniser processes, sampled from /proc (a process's last interval is missed). */
  recogniser_cpu_per_recording: number;
  /**
   * CPU of every child the service waited for during the phase (its cutime + cstime): the
   * recognisers, ffmpeg and `chrt`, none of it missed between samples.
   */
  reaped_children_cpu_per_recording: number;
  ffmpeg_cpu_per_recording: number;
  /** The service's own Node process (API, queues, diarizer threads, mapping results). */
  service_cpu_per_recording: number;
  cpu_by_program: Record<string, number>;
  peak_tree_rss_mib: number;
  peak_service_rss_mib: number;
  peak_recogniser_rss_mib: number;
  peak_tree_rss_by_program_mib: Record<string, number>;
  bench_cpu_seconds: number;
  machine_cpu_seconds: number;
  stolen_cpu_seconds: number;
  get_note: LatencySummary;
}

export interface EngineResult {
  /** `NOTES_SPEECH_ENGINE` of its service. */
  setting: string;
  /** What the transcripts said made them (`engine`): checked on every one. */
  transcript_engine: string;
  /** Of the warm-up transcription, which also waits for the engine to be ready. */
  warm_up_seconds: number;
  words: number;
  idle: LatencySummary;
  rounds: Array<{ one: Phase; four: Phase; ratio: number }>;
  one_alone_median_seconds: number;
  four_at_once_median_seconds: number;
  four_to_one_median: number;
  peak_tree_rss_mib: number;
  peak_service_rss_mib: number;
  peak_recogniser_rss_mib: number;
  /** At the tree's highest peak of all phases. */
  peak_tree_rss_by_program_mib: Record<string, number>;
  recognisers_at_once: number;
  /** Medians over every phase (one alone and four at once) of each round. */
  recogniser_cpu_per_recording: number;
  reaped_children_cpu_per_recording: number;
  ffmpeg_cpu_per_recording: number;
  service_cpu_per_recording: number;
  get_note_while_transcribing: LatencySummary & { p99_ratio: number };
}

export interface WhisperPlumbingResult {
  settings: Record<string, string | number | boolean>;
  caveat: string;
  load_average_start: number[];
  load_average_end: number[];
  engines: Record<Engine, EngineResult>;
  whisper_to_pocketsphinx: {
    one_alone_wall: number;
    four_to_one: number;
    peak_tree_rss: number;
    peak_recogniser_rss: number;
    recogniser_cpu_per_recording: number;
    reaped_children_cpu_per_recording: number;
  };
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<WhisperPlumbingResult> {
  const quick = argv.includes('--quick');
  const rounds = Number(cliOption(argv, '--rounds') ?? (quick ? 1 : 3));
  if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error('bad --rounds');
  const clipSeconds = quick ? 20 : 60;
  const idleSeconds = quick ? 10 : 20;
  const cores = availableParallelism();
  const model = await whisperTestModel();
  const settings = {
    quick,
    cores,
    clip_seconds: clipSeconds,
    rounds,
    idle_seconds: idleSeconds,
    whisper_model: basename(model),
    whisper_model_mib: round((await stat(model)).size / 2 ** 20),
    NOTES_WHISPER_LANGUAGE: 'en',
    NOTES_TRANSCRIPTION_CONCURRENCY: process.env.NOTES_TRANSCRIPTION_CONCURRENCY ?? 'unset (service default)',
    poll_interval_ms: POLL_MS,
    proc_sample_interval_ms: SAMPLE_MS,
  };
  const speech = await sixtySecondsOfSpeech();
  const clip = await loopRecording(speech.file, clipSeconds / 60, join(OUT_DIR, `clip-${clipSeconds}s.wav`));

  const loadAverageStart = loadavg().map((value) => round(value, 2));
  const environments: Record<Engine, Record<string, string | undefined>> = {
    pocketsphinx: {
      NOTES_SPEECH_ENGINE: 'local',
      NOTES_WHISPER_MODEL: undefined,
      NOTES_WHISPER_LANGUAGE: undefined,
    },
    // English, as base.en hears: the test model's file name does not end in `.en`, so it would be
    // taken for a multilingual model and detect the language per chunk.
    whisper: { NOTES_SPEECH_ENGINE: 'whisper', NOTES_WHISPER_MODEL: model, NOTES_WHISPER_LANGUAGE: 'en' },
  };
  const engines = {} as Record<Engine, EngineResult>;
  for (const engine of ENGINES) {
    process.stderr.write(`  ${engine}: starting its service\n`);
    engines[engine] = await measureEngine(
      engine,
      environments[engine],
      clip,
      clipSeconds,
      rounds,
      idleSeconds,
    );
  }
  const [p, w] = [engines.pocketsphinx, engines.whisper];
  const result: WhisperPlumbingResult = {
    settings,
    caveat: TEST_MODEL_CAVEAT,
    load_average_start: loadAverageStart,
    load_average_end: loadavg().map((value) => round(value, 2)),
    engines,
    whisper_to_pocketsphinx: {
      one_alone_wall: ratio(w.one_alone_median_seconds, p.one_alone_median_seconds),
      four_to_one: ratio(w.four_to_one_median, p.four_to_one_median),
      peak_tree_rss: ratio(w.peak_tree_rss_mib, p.peak_tree_rss_mib),
      peak_recogniser_rss: ratio(w.peak_recogniser_rss_mib, p.peak_recogniser_rss_mib),
      recogniser_cpu_per_recording: ratio(w.recogniser_cpu_per_recording, p.recogniser_cpu_per_recording),
      reaped_children_cpu_per_recording: ratio(
        w.reaped_children_cpu_per_recording,
        p.reaped_children_cpu_per_recording,
      ),
    },
  };
  console.log(whisperPlumbingTable(result));
  await mkdir(OUT_DIR, { recursive: true });
  await writeFile(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`Results: ${join('bench', 'out', basename(OUT_FILE))}`);
  return result;
}

async function measureEngine(
  engine: Engine,
  env: Record<string, string | undefined>,
  clip: string,
  clipSeconds: number,
  rounds: number,
  idleSeconds: number,
): Promise<EngineResult> {
  const service = await withEnv(env, () => startService(`whisper-plumbing-${engine}`));
  try {
    const getNote = await getNoteProbe(service);
    const transcribeClip = async (title: string) => {
      const heard = await transcribe(service, clip, title);
      const expected = engine === 'whisper' ? 'whisper.cpp:' : 'local-pocketsphinx';
      // A service that fell back to another engine would measure the wrong one.
      if (!heard.engine.startsWith(expected))
        throw new Error(`${engine}: a transcript was made by ${heard.engine || 'an unnamed engine'}`);
      return heard;
    };
    process.stderr.write(`  ${engine}: idle, ${idleSeconds} s of getNote\n`);
    const idle = await sampleUntil(getNote, sleep(idleSeconds * 1000));

    // The first transcription of a start loads the workers' handler modules (and, for whisper, waits
    // for the model's check): paid once per start, it would make the first "one alone" look slower.
    process.stderr.write(`  ${engine}: warm-up, one recording, not measured\n`);
    const warmUpStarted = performance.now();
    const warmUp = await transcribeClip('Benchmark: warm-up');
    const warmUpSeconds = (performance.now() - warmUpStarted) / 1000;

    const measured: Array<{ one: Measured; four: Measured }> = [];
    for (let n = 1; n <= rounds; n++) {
      process.stderr.write(`  ${engine}: round ${n} of ${rounds}, one ${clipSeconds} s recording alone\n`);
      const one = await measurePhase(service, getNote, 1, () =>
        transcribeClip(`Benchmark: ${clipSeconds} s alone`),
      );
      process.stderr.write(`  ${engine}: round ${n} of ${rounds}, ${AT_ONCE} at once\n`);
      const four = await measurePhase(service, getNote, AT_ONCE, () =>
        Promise.all(
          Array.from({ length: AT_ONCE }, (_, i) =>
            transcribeClip(`Benchmark: ${clipSeconds} s, ${i + 1} of ${AT_ONCE}`),
          ),
        ),
      );
      measured.push({ one, four });
    }

    const idleSummary = summarize(idle.map((sample) => sample.ms));
    const busy = summarize(measured.flatMap(({ one, four }) => [...one.latencies, ...four.latencies]));
    const roundResults = measured.map(({ one, four }) => ({
      one: phase(one),
      four: phase(four),
      ratio: round(four.wallSeconds / one.wallSeconds, 2),
    }));
    const phases = roundResults.flatMap(({ one, four }) => [one, four]);
    const highest = measured
      .flatMap(({ one, four }) => [one, four])
      .reduce((top, next) => (next.peaks.treeKb > top.peaks.treeKb ? next : top));
    const medianOf = (pick: (p: Phase) => number, digits = 1) => round(median(phases.map(pick)), digits);
    const maxOf = (pick: (p: Phase) => number) => Math.max(...phases.map(pick));
    return {
      setting: String(env.NOTES_SPEECH_ENGINE),
      transcript_engine: warmUp.engine,
      warm_up_seconds: round(warmUpSeconds),
      words: warmUp.words,
      idle: idleSummary,
      rounds: roundResults,
      one_alone_median_seconds: round(median(roundResults.map((r) => r.one.wall_seconds)), 2),
      four_at_once_median_seconds: round(median(roundResults.map((r) => r.four.wall_seconds)), 2),
      four_to_one_median: round(median(roundResults.map((r) => r.ratio)), 2),
      peak_tree_rss_mib: maxOf((p) => p.peak_tree_rss_mib),
      peak_service_rss_mib: maxOf((p) => p.peak_service_rss_mib),
      peak_recogniser_rss_mib: maxOf((p) => p.peak_recogniser_rss_mib),
      peak_tree_rss_by_program_mib: mib(highest.peaks.treeByNameKb),
      recognisers_at_once: maxOf((p) => p.recognisers_at_once),
      recogniser_cpu_per_recording: medianOf((p) => p.recogniser_cpu_per_recording, 2),
      reaped_children_cpu_per_recording: medianOf((p) => p.reaped_children_cpu_per_recording, 2),
      ffmpeg_cpu_per_recording: medianOf((p) => p.ffmpeg_cpu_per_recording, 2),
      service_cpu_per_recording: medianOf((p) => p.service_cpu_per_recording, 2),
      get_note_while_transcribing: { ...busy, p99_ratio: round(busy.p99_ms / idleSummary.p99_ms, 2) },
    };
  } finally {
    await service.stop();
  }
}

/**
 * Runs `start` with `env` set in this process's environment (undefined: removed), then puts it back:
 * startService hands the service this process's environment as it is when it spawns it.
 */
async function withEnv<T>(env: Record<string, string | undefined>, start: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(env);
  try {
    return await start();
  } finally {
    apply(saved);
  }
}

interface Measured {
  recordings: number;
  wallSeconds: number;
  latencies: number[];
  peaks: TreePeaks;
  reapedChildrenCpuSeconds: number;
  benchCpuSeconds: number;
  machineCpuSeconds: number;
  stolenCpuSeconds: number;
}

/** Runs `work` (`recordings` transcriptions) while sampling getNote and the service's process tree. */
async function measurePhase(
  service: Service,
  getNote: () => Promise<number>,
  recordings: number,
  work: () => Promise<unknown>,
): Promise<Measured> {
  const tree = sampleProcessTree(service.pid, SAMPLE_MS);
  const reaped = reapedChildrenCpuSecondsOf(service.pid);
  const started = performance.now();
  const benchCpu = process.cpuUsage();
  const machineCpu = machineCpuSeconds();
  const samples = await sampleUntil(getNote, work());
  const wallSeconds = (performance.now() - started) / 1000;
  const benchCpuUsed = process.cpuUsage(benchCpu);
  const machineCpuAfter = machineCpuSeconds();
  return {
    recordings,
    wallSeconds,
    latencies: samples.map((sample) => sample.ms),
    peaks: await tree.stop(),
    reapedChildrenCpuSeconds: reapedChildrenCpuSecondsOf(service.pid) - reaped,
    benchCpuSeconds: (benchCpuUsed.user + benchCpuUsed.system) / 1e6,
    machineCpuSeconds: machineCpuAfter.busy - machineCpu.busy,
    stolenCpuSeconds: machineCpuAfter.stolen - machineCpu.stolen,
  };
}

function phase(run: Measured): Phase {
  const perRecording = (seconds: number) => round(seconds / run.recordings, 2);
  const cpu = run.peaks.cpuSeconds;
  return {
    recordings: run.recordings,
    wall_seconds: round(run.wallSeconds, 2),
    recognisers_at_once: run.peaks.recognisersAtOnce,
    recogniser_cpu_per_recording: perRecording(sumWhere(cpu, isRecogniser)),
    reaped_children_cpu_per_recording: perRecording(run.reapedChildrenCpuSeconds),
    ffmpeg_cpu_per_recording: perRecording(sumWhere(cpu, (name) => name === 'ffmpeg')),
    service_cpu_per_recording: perRecording(run.peaks.rootCpuSeconds),
    cpu_by_program: Object.fromEntries(
      Object.entries({ root: run.peaks.rootCpuSeconds, ...cpu }).map(([name, s]) => [name, round(s, 2)]),
    ),
    peak_tree_rss_mib: round(run.peaks.treeKb / 1024),
    peak_service_rss_mib: round(run.peaks.rootKb / 1024),
    peak_recogniser_rss_mib: round(run.peaks.recogniserKb / 1024),
    peak_tree_rss_by_program_mib: mib(run.peaks.treeByNameKb),
    bench_cpu_seconds: round(run.benchCpuSeconds),
    machine_cpu_seconds: round(run.machineCpuSeconds),
    stolen_cpu_seconds: round(run.stolenCpuSeconds),
    get_note: summarize(run.latencies),
  };
}

/** Submit, upload, wait until completed: the engine the transcript names and its word count. */
async function transcribe(
  service: Service,
  file: string,
  title: string,
): Promise<{ engine: string; words: number }> {
  const noteId = randomUUID();
  await submitAndUpload(service, noteId, file, title);
  const { body } = await pollTranscription(service, noteId, MAX_JOB_MS, POLL_MS);
  return {
    engine: String(body.engine ?? ''),
    words: String(body.full_text ?? '')
      .split(/\s+/)
      .filter(Boolean).length,
  };
}

const sumWhere = (values: Record<string, number>, keep: (name: string) => boolean) =>
  Object.entries(values).reduce((sum, [name, value]) => sum + (keep(name) ? value : 0), 0);

const mib = (kb: Record<string, number>) =>
  Object.fromEntries(Object.entries(kb).map(([name, value]) => [name, round(value / 1024)]));

export function whisperPlumbingTable(r: WhisperPlumbingResult): string {
  const s = r.settings;
  const p = r.engines.pocketsphinx;
  const w = r.engines.whisper;
  const x = r.whisper_to_pocketsphinx;
  const rows: Array<[string, string, string, string]> = [
    ['', 'pocketsphinx', 'whisper (TEST MODEL)', 'whisper ÷ pocketsphinx'],
    [
      'one alone, wall (median)',
      `${p.one_alone_median_seconds} s`,
      `${w.one_alone_median_seconds} s`,
      `${orNa(x.one_alone_wall)}×`,
    ],
    [
      `${AT_ONCE} at once, wall (median)`,
      `${p.four_at_once_median_seconds} s`,
      `${w.four_at_once_median_seconds} s`,
      '',
    ],
    [
      `${AT_ONCE} at once ÷ one (median of rounds)`,
      `${p.four_to_one_median}×`,
      `${w.four_to_one_median}×`,
      `${orNa(x.four_to_one)}×`,
    ],
    [
      'peak RSS, service + descendants',
      `${p.peak_tree_rss_mib} MiB`,
      `${w.peak_tree_rss_mib} MiB`,
      `${orNa(x.peak_tree_rss)}×`,
    ],
    ['peak RSS, service process alone', `${p.peak_service_rss_mib} MiB`, `${w.peak_service_rss_mib} MiB`, ''],
    [
      'peak RSS, largest recogniser process',
      `${p.peak_recogniser_rss_mib} MiB`,
      `${w.peak_recogniser_rss_mib} MiB`,
      `${orNa(x.peak_recogniser_rss)}×`,
    ],
    ['recogniser processes at once (most)', `${p.recognisers_at_once}`, `${w.recognisers_at_once}`, ''],
    [
      'recogniser CPU per recording (sampled)',
      `${p.recogniser_cpu_per_recording} s`,
      `${w.recogniser_cpu_per_recording} s`,
      `${orNa(x.recogniser_cpu_per_recording)}×`,
    ],
    [
      'reaped children CPU per recording',
      `${p.reaped_children_cpu_per_recording} s`,
      `${w.reaped_children_cpu_per_recording} s`,
      `${orNa(x.reaped_children_cpu_per_recording)}×`,
    ],
    ['  of which ffmpeg (sampled)', `${p.ffmpeg_cpu_per_recording} s`, `${w.ffmpeg_cpu_per_recording} s`, ''],
    [
      'service process CPU per recording',
      `${p.service_cpu_per_recording} s`,
      `${w.service_cpu_per_recording} s`,
      '',
    ],
    ['getNote p99 idle', `${p.idle.p99_ms.toFixed(1)} ms`, `${w.idle.p99_ms.toFixed(1)} ms`, ''],
    [
      'getNote p99 while transcribing',
      `${p.get_note_while_transcribing.p99_ms.toFixed(1)} ms`,
      `${w.get_note_while_transcribing.p99_ms.toFixed(1)} ms`,
      '',
    ],
    [
      'getNote p99 transcribing ÷ idle',
      `${p.get_note_while_transcribing.p99_ratio}×`,
      `${w.get_note_while_transcribing.p99_ratio}×`,
      '',
    ],
    ['warm-up transcription (not measured)', `${p.warm_up_seconds} s`, `${w.warm_up_seconds} s`, ''],
    ['words in the warm-up transcript', `${p.words}`, `${w.words} (nonsense)`, ''],
    ['transcripts made by', p.transcript_engine, w.transcript_engine, ''],
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const table = rows.map(([label, a, b, c]) =>
    `  ${label.padEnd(widths[0] ?? 0)}  ${a.padStart(widths[1] ?? 0)}  ${b.padStart(widths[2] ?? 0)}  ${c}`.trimEnd(),
  );
  const roundLines = (name: Engine, e: EngineResult) =>
    e.rounds.map(
      ({ one, four, ratio }, i) =>
        `  ${name} round ${i + 1}: one alone ${one.wall_seconds} s, ${AT_ONCE} at once ${four.wall_seconds} s ` +
        `(recognisers at once: ${one.recognisers_at_once}, ${four.recognisers_at_once}): ${ratio}×; ` +
        `recogniser CPU per recording ${one.recogniser_cpu_per_recording} s, ${four.recogniser_cpu_per_recording} s; ` +
        `the machine's CPU ${one.machine_cpu_seconds} s, ${four.machine_cpu_seconds} s ` +
        `(stolen ${one.stolen_cpu_seconds} s, ${four.stolen_cpu_seconds} s)`,
    );
  const byProgram = (name: Engine, e: EngineResult) =>
    `  ${name}: at the tree's peak, RSS by program (MiB; root: the service's Node process): ` +
    Object.entries(e.peak_tree_rss_by_program_mib)
      .map(([program, value]) => `${program} ${value}`)
      .join(', ');
  return [
    `Settings: ${s.cores} cores, clip ${s.clip_seconds} s, ${s.rounds} round(s)${s.quick ? ' (--quick)' : ''}, ` +
      `NOTES_TRANSCRIPTION_CONCURRENCY=${s.NOTES_TRANSCRIPTION_CONCURRENCY}, poll ${s.poll_interval_ms} ms, ` +
      `/proc every ${s.proc_sample_interval_ms} ms; whisper model ${s.whisper_model} (${s.whisper_model_mib} MiB), ` +
      `NOTES_WHISPER_LANGUAGE=${s.NOTES_WHISPER_LANGUAGE}`,
    `Load average (1, 5, 15 min): start ${r.load_average_start.join(', ')}; end ${r.load_average_end.join(', ')}`,
    `NOTE: ${r.caveat}`,
    ...table,
    ...roundLines('pocketsphinx', p),
    ...roundLines('whisper', w),
    byProgram('pocketsphinx', p),
    byProgram('whisper', w),
    '  (recogniser CPU: pocketsphinx* processes, or node processes running whisper-process, sampled from /proc;',
    "   reaped children CPU: the service's cutime + cstime, every child it waited for: recognisers, ffmpeg, chrt)",
  ].join('\n');
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const ratio = (a: number, b: number) => round(a / b, 2);
const orNa = (value: number) => (Number.isFinite(value) ? String(value) : 'n/a');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}

/**
 * `npm run bench [-- api | transcription | quality | diarization-loso | confidence | recogniser | ask | search | long | under-work | bundles | storage | corrections | correction-index | web-app | web-long-note | throughput | whisper | start]`
 * (`quality`: recogniser and diarizer scores, then the diarizer's leave-one-source-out folds, which
 * `diarization-loso` runs alone, then the speech-presence check and low-confidence flag on tuning and
 * held-out material, which `confidence` runs alone; `recogniser`: the decoder-settings sweep on real speech, about 15 minutes; `long`: a 60-minute
 * recording with 1 and 2 recognisers; `under-work`: getNote latency while a 30-minute recording is processed;
 * `throughput`: one 60 s recording alone, then four at once (three rounds, `--rounds N`), then a 30-minute one
 * against its CPU limit, with getNote latency and peak memory (`--minutes N`, `--quick` for a smoke run of a minute or two),
 * then a 20 s recording alone and submitted while a 10-minute one is recognised (`--only-turns` for that alone);
 * `whisper`: the same, one alone then four at once (`--rounds N`, `--quick`), through pocketsphinx and then the embedded
 * Whisper on a random-weight test model, side by side: the plumbing's overhead, not a real model's compute;
 * `start`: `npm start`'s second start to its first answer next to a bare Node server's (`--runs N`);
 * several minutes each, and `all` runs them too): runs the benchmarks, prints a table per benchmark and writes
 * bench/out/results.json. Loopback only; every run is bounded in time and stops by itself.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { apiLatency, apiTable } from './api-latency.ts';
import { main as apiUnderWork } from './api-under-work.ts';
import { askBench, askTable } from './ask.ts';
import { main as bundleSizeReport } from './bundle-size.ts';
import { correctionIndexBench, correctionIndexTable } from './correction-index.ts';
import { main as diarizationLoso } from './diarization-loso.ts';
import { main as longRecording } from './long-recording.ts';
import { mixedTable } from './mixed-traffic.ts';
import { confidenceTables, recogniserConfidenceBench } from './recogniser-confidence.ts';
import { main as recogniserSettings } from './recogniser-settings.ts';
import { searchBench, searchTable } from './search.ts';
import { startBench, startTable } from './start-up.ts';
import { storageFrontBench, storageFrontTable } from './storage-front.ts';
import { cliOption, OUT_DIR } from './support.ts';
import { main as throughput } from './throughput.ts';
import { correctionsBench, correctionsTable } from './transcript-corrections.ts';
import { main as transcriptQuality } from './transcript-quality.ts';
import { transcriptionRtf, transcriptionTable } from './transcription-rtf.ts';
import { webAppSize, webAppSizeTable } from './web-app-size.ts';
import { webLongNoteBench, webLongNoteTable } from './web-long-note.ts';
import { main as whisperPlumbing } from './whisper-plumbing.ts';

// Every bench measures pocketsphinx unless it names another engine (the whisper bench does): the
// service's default, Whisper, would fetch a model first.
process.env.NOTES_SPEECH_ENGINE ??= 'local';
process.env.NOTES_VOICE_MODEL ??= 'off';
const which = process.argv[2] ?? 'all';
const NAMES = [
  'all',
  'api',
  'transcription',
  'quality',
  'diarization-loso',
  'confidence',
  'recogniser',
  'ask',
  'search',
  'long',
  'under-work',
  'bundles',
  'storage',
  'corrections',
  'correction-index',
  'web-app',
  'web-long-note',
  'throughput',
  'whisper',
  'start',
];
if (!NAMES.includes(which)) {
  console.error(`usage: npm run bench [-- ${NAMES.slice(1).join(' | ')}]`);
  process.exit(2);
}

const machine = {
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? 'unknown',
  memory_gib: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  /** Other work on the machine skews every number here: check this is near 0 before trusting a run. */
  load_average_1m: Number((loadavg()[0] ?? 0).toFixed(2)),
};
console.log(
  `Machine: ${machine.cpus} cores (${machine.cpu_model}), ${machine.memory_gib} GiB, Node ${machine.node}, ` +
    `load average ${machine.load_average_1m} at start (other work on the machine skews every number)`,
);
console.log(
  'The service, the load generator and the engine share these cores: numbers are relative, not capacity.\n',
);

const results: Record<string, unknown> = { date: new Date().toISOString(), machine };

if (which === 'all' || which === 'transcription') {
  console.log('Transcription of ~60 s of speech, end to end through the API (fresh service, pocketsphinx)');
  const result = await transcriptionRtf();
  results.transcription = result;
  console.log(`${transcriptionTable(result)}\n`);
}

if (which === 'all' || which === 'api') {
  console.log(
    'API latency: autocannon, 10 connections, 10 s each after a 2 s warm-up, 200 notes in the store; CPU per request from /proc/<pid>/stat (all threads)',
  );
  console.log(
    '(service and autocannon in separate processes on the same 2 cores; ratios against the baseline)',
  );
  const seconds = cliOption(process.argv, '--mixed-seconds');
  const rate = cliOption(process.argv, '--mixed-rate');
  const only = cliOption(process.argv, '--only');
  const result = await apiLatency({
    ...(seconds ? { mixedSeconds: Number(seconds) } : {}),
    ...(rate ? { mixedRatePerKind: Number(rate) } : {}),
    ...(only ? { only: only.split(',') } : {}),
  });
  results.api = result;
  console.log(`${apiTable(result)}\n`);
  if (result.mixed) {
    console.log(
      `Mixed traffic: ${result.mixed.rate_per_kind} req/s each of getNote, listNotes, searchNotes, askWorkspace for ${result.mixed.seconds} s (open loop), the same schedule to the baseline at the same time`,
    );
    console.log(`${mixedTable(result.mixed)}\n`);
  }
}

if (which === 'all' || which === 'ask') {
  console.log(
    'Ask: 1,000 notes of transcript text in the local store, 200 questions over HTTP, one at a time',
  );
  const result = await askBench();
  results.ask = result;
  console.log(`${askTable(result)}\n`);
}

if (which === 'all' || which === 'search') {
  console.log(
    'Search: one account grown to 10, 1,000 and 10,000 notes of transcript text, 100 queries of each kind over HTTP',
  );
  const result = await searchBench();
  results.search = result;
  console.log(`${searchTable(result)}\n`);
}

if (which === 'all' || which === 'storage') {
  console.log(
    'Object store: presigned 32 MiB uploads and 1 KiB SDK reads, through the signature-checking front and to s3rver alone',
  );
  const result = await storageFrontBench();
  results.storage_front = result;
  console.log(`${storageFrontTable(result)}\n`);
}

if (which === 'all' || which === 'quality') {
  results.transcript_quality = await transcriptQuality();
}

if (which === 'diarization-loso') {
  results.diarization_loso = await diarizationLoso();
}

if (which === 'all' || which === 'quality' || which === 'confidence') {
  console.log('Says when it is guessing: speech presence (no_speech) and low confidence (low_confidence)');
  const result = await recogniserConfidenceBench();
  results.recogniser_confidence = result;
  console.log(`${confidenceTables(result)}\n`);
}

if (which === 'all' || which === 'recogniser') {
  results.recogniser_settings = await recogniserSettings();
}

if (which === 'all' || which === 'long') {
  // Extra arguments after `long` reach the script: `npm run bench -- long --minutes 20`.
  results.long_recording = await longRecording(process.argv.slice(3));
}

if (which === 'all' || which === 'under-work') {
  // `npm run bench -- under-work --minutes 10` for a shorter recording.
  console.log('API under work: getNote over HTTP, idle and while a long two-voice recording is processed');
  results.api_under_work = await apiUnderWork(process.argv.slice(3));
}

if (which === 'all' || which === 'throughput') {
  // `npm run bench -- throughput --quick` for a smoke run, `--minutes 10` for a shorter long recording.
  console.log(
    'Throughput: one recording alone, four at once, a long one against its CPU limit (one service)',
  );
  results.throughput = await throughput(process.argv.slice(3));
}

if (which === 'all' || which === 'whisper') {
  // `npm run bench -- whisper --quick` for a smoke run, `--rounds N` for more or fewer rounds.
  console.log(
    'Whisper plumbing: one recording alone, four at once, through pocketsphinx then whisper.cpp on a random-weight test model (one service each)',
  );
  results.whisper_plumbing = await whisperPlumbing(process.argv.slice(3));
}

if (which === 'all' || which === 'corrections') {
  console.log('Transcript corrections: the CPU work of one correction on a two-hour transcript');
  const result = correctionsBench();
  results.corrections = result;
  console.log(`${correctionsTable(result)}\n`);
}

if (which === 'all' || which === 'correction-index') {
  console.log('Transcript corrections and renames: what they cost the search index on a 15,000-word note');
  const result = await correctionIndexBench();
  results.correction_index = result;
  console.log(`${correctionIndexTable(result)}\n`);
}

if (which === 'all' || which === 'web-app') {
  console.log('Web app: what a browser downloads (page, script, stylesheet), next to Preact alone');
  const result = await webAppSize();
  results.web_app = result;
  console.log(`${webAppSizeTable(result)}\n`);
}

if (which === 'all' || which === 'web-long-note') {
  console.log('Web app: the note page in Chromium, a 1-minute note next to a 2-hour one, opened and played');
  const result = await webLongNoteBench();
  results.web_long_note = result;
  console.log(`${webLongNoteTable(result)}\n`);
}

if (which === 'all' || which === 'start') {
  // `npm run bench -- start --runs 10` for more runs.
  console.log(
    'Start-up: spawn to first answer, `npm start` on its second start next to a bare Node server (alternating)',
  );
  const result = await startBench(process.argv.slice(3));
  results.start = result;
  console.log(`${startTable(result)}\n`);
}

if (which === 'all' || which === 'bundles') {
  results.bundles = await bundleSizeReport();
}

await mkdir(OUT_DIR, { recursive: true });
await writeFile(join(OUT_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(`Results: ${join('bench', 'out', 'results.json')}`);

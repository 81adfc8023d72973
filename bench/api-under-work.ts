/**
 * Is the API still responsive while a long recording is processed? One service (as `npm start` runs
 * it); getNote p50/p99 over HTTP while idle, then while a `--minutes` (default 30) two-voice recording
 * is decoded, recognised and diarized, in the same run. One client, one request at a time, paced, so
 * the load generator itself takes little CPU from the service.
 * Run: npx tsx bench/api-under-work.ts [--minutes 30]
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { probeDurationMs } from '../src/adapters/speech/ffmpeg.ts';
import { getNoteProbe, type LatencySummary, sampleUntil, summarize } from './get-note-latency.ts';
import { cliOption, pollTranscription, startService, submitAndUpload, twoVoiceRecording } from './support.ts';

const IDLE_SECONDS = 20;
/** Bounded even when processing stalls. */
const MAX_PROCESSING_MS = 30 * 60_000;

export interface ApiUnderWorkResult {
  audio_seconds: number;
  processing_seconds: number;
  idle: LatencySummary;
  /** From the end of the upload until the transcript is served. */
  processing: LatencySummary;
  /** The first two minutes of `processing` (the outside review measured 6-8 s there). */
  first_two_minutes: LatencySummary;
  p50_ratio: number;
  p99_ratio: number;
  speakers: number;
  words: number;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<ApiUnderWorkResult> {
  const minutes = Number(cliOption(argv, '--minutes') ?? 30);
  if (!(minutes > 0)) throw new Error('bad --minutes');
  const recording = await twoVoiceRecording(minutes);
  const audioSeconds = ((await probeDurationMs(recording)) ?? 0) / 1000;
  const service = await startService('api-under-work');
  try {
    const getNote = await getNoteProbe(service);
    process.stderr.write(`  idle: ${IDLE_SECONDS} s of getNote\n`);
    const idle = await sampleUntil(getNote, sleep(IDLE_SECONDS * 1000));

    const noteId = randomUUID();
    process.stderr.write(`  uploading ${minutes} min of audio\n`);
    await submitAndUpload(service, noteId, recording, `Benchmark: ${minutes} min, two voices`);
    const started = performance.now();
    process.stderr.write('  processing: getNote every 100 ms until the transcript is served\n');
    const transcript = pollTranscription(service, noteId, MAX_PROCESSING_MS);
    const busy = await sampleUntil(getNote, transcript);
    const processingSeconds = (performance.now() - started) / 1000;
    const { body } = await transcript;

    const idleSummary = summarize(idle.map((s) => s.ms));
    const busySummary = summarize(busy.map((s) => s.ms));
    const firstTwo = summarize(busy.filter((s) => s.at - started < 120_000).map((s) => s.ms));
    const segments = (body.conversation_segments ?? []) as { speaker: string }[];
    const result: ApiUnderWorkResult = {
      audio_seconds: round(audioSeconds),
      processing_seconds: round(processingSeconds),
      idle: idleSummary,
      processing: busySummary,
      first_two_minutes: firstTwo,
      p50_ratio: round(busySummary.p50_ms / idleSummary.p50_ms, 2),
      p99_ratio: round(busySummary.p99_ms / idleSummary.p99_ms, 2),
      speakers: new Set(segments.map((segment) => segment.speaker)).size,
      words: String(body.full_text ?? '')
        .split(/\s+/)
        .filter(Boolean).length,
    };
    console.log(underWorkTable(result));
    return result;
  } finally {
    await service.stop();
  }
}

export function underWorkTable(r: ApiUnderWorkResult): string {
  const row = (name: string, s: LatencySummary) =>
    `  ${name.padEnd(34)} ${String(s.requests).padStart(8)} ${s.p50_ms.toFixed(1).padStart(9)} ` +
    `${s.p99_ms.toFixed(1).padStart(9)} ${s.max_ms.toFixed(1).padStart(9)}`;
  return [
    `Recording: ${r.audio_seconds} s of two flite voices, processed in ${r.processing_seconds} s ` +
      `(${r.words} words, ${r.speakers} speakers)`,
    `  ${'getNote'.padEnd(34)} ${'requests'.padStart(8)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'max ms'.padStart(9)}`,
    row('idle', r.idle),
    row('while processing', r.processing),
    row('  first two minutes of it', r.first_two_minutes),
    `  processing ÷ idle: p50 ${r.p50_ratio}×, p99 ${r.p99_ratio}× (aim: p99 under 5×)`,
  ].join('\n');
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}

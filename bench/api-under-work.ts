/**
 * Is the API still responsive while a long recording is processed? One service (as `npm start` runs
 * it); getNote p50/p99 over HTTP while idle, then while a `--minutes` (default 30) two-voice recording
 * is decoded, recognised and diarized, in the same run. One client, one request at a time, paced, so
 * the load generator itself takes little CPU from the service.
 * Run: npx tsx bench/api-under-work.ts [--minutes 30]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { probeDurationMs } from '../src/adapters/speech/ffmpeg.ts';
import { ensureConversations } from '../test/fixtures/conversations/generate.ts';
import {
  cliOption,
  loopRecording,
  OUT_DIR,
  percentile,
  pollTranscription,
  type Service,
  startService,
  submitAndUpload,
} from './support.ts';

/** One getNote every 100 ms at most: ~10 req/s, a few % of a core, like a client or two polling. */
const PACE_MS = 100;
const IDLE_SECONDS = 20;
const WARMUP_REQUESTS = 20;
/** Bounded even when processing stalls. */
const MAX_PROCESSING_MS = 30 * 60_000;

export interface LatencySummary {
  requests: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

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
    const probeId = randomUUID();
    const probe = await service.api('POST', `/v1/notes/${probeId}/transcription`, {
      title: 'Probe note',
      content_type: 'audio/wav',
      size_bytes: 100_000,
    });
    if (probe.status !== 202) throw new Error(`probe note: ${probe.status}`);
    const getNote = () => timedGet(service, `/v1/notes/${probeId}`);
    for (let i = 0; i < WARMUP_REQUESTS; i++) await getNote();

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

/** The two-speaker flite conversation of the test fixtures, looped to `minutes`; cached in bench/out. */
async function twoVoiceRecording(minutes: number): Promise<string> {
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('no two-speakers conversation fixture');
  return loopRecording(conversation.audio, minutes, join(OUT_DIR, `two-voices-${minutes}min.wav`));
}

async function timedGet(service: Service, path: string): Promise<number> {
  const started = performance.now();
  const response = await service.api('GET', path);
  if (response.status !== 200)
    throw new Error(`getNote: ${response.status} ${JSON.stringify(response.body)}`);
  return performance.now() - started;
}

/** Paced requests, one at a time, until `until` settles; each sample is its start time and latency. */
async function sampleUntil(request: () => Promise<number>, until: Promise<unknown>) {
  let done = false;
  const finished = until.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  const samples: { at: number; ms: number }[] = [];
  while (!done) {
    const at = performance.now();
    const ms = await request();
    samples.push({ at, ms });
    await Promise.race([sleep(Math.max(0, PACE_MS - ms)), finished]);
  }
  await until;
  return samples;
}

function summarize(latencies: number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50_ms: round(percentile(sorted, 0.5), 2),
    p99_ms: round(percentile(sorted, 0.99), 2),
    max_ms: round(sorted.at(-1) ?? Number.NaN, 2),
  };
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

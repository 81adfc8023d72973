/**
 * Real-time factor of transcribing a ~60 s recording, end to end through the API: a fresh service,
 * submitTranscription, PUT the WAV, poll getTranscription every 2 s until 200.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { OUT_DIR, pollTranscription, startService, submitAndUpload, synthesize } from './support.ts';

const POLL_INTERVAL_MS = 2_000;

/** Read by flite's slt voice this lasts about 61 s. */
const PASSAGE = [
  'Good morning, everyone, and thank you for joining the weekly planning meeting.',
  'Let us start with the garden project behind the library.',
  'The volunteers planted forty new trees in the spring, and most of them are growing well.',
  'The oak trees near the river need more water during the summer,',
  'so we will set up a schedule for the next three months.',
  'Next, the reading room. The old lamps are too dim in the evening,',
  'and several visitors asked for brighter light near the tables.',
  'We found a local shop that can replace them before the end of the month.',
  'The cost is lower than we expected.',
  'The new roof over the east wing is finished, and it kept the rain out during the storm last week.',
  'Then, the winter market. We would like to invite twenty farmers and bakers from the valley.',
  'Each stall will need a table, a small sign, and a place to keep food cold.',
  'Please send your ideas for music and games for the children.',
  'Finally, a reminder that the building will be closed on Friday for cleaning.',
  'Thank you, and see you next week.',
].join(' ');

export interface TranscriptionResult {
  audio_seconds: number;
  poll_interval_seconds: number;
  /** From the submit request to the 200 of getTranscription (includes up to one poll interval). */
  wall_seconds: number;
  rtf_end_to_end: number;
  /** The job's own `updated_at - created_at`: from submit (job created) to completed. */
  processing_seconds: number;
  rtf_processing: number;
  /** From the worker picking up the upload (`audio.uploaded_at`) to the job completing. */
  worker_seconds: number;
  rtf_worker: number;
  script_words: number;
  transcript_words: number;
}

/** PASSAGE spoken by flite into bench/out/speech-60s.wav; its path and duration in seconds. */
export async function sixtySecondsOfSpeech(): Promise<{ file: string; seconds: number }> {
  await mkdir(OUT_DIR, { recursive: true });
  const file = join(OUT_DIR, 'speech-60s.wav');
  const seconds = await synthesize(PASSAGE, file);
  if (seconds < 55 || seconds > 65) throw new Error(`synthesized ${seconds} s, expected 55-65 s`);
  return { file, seconds };
}

export async function transcriptionRtf(): Promise<TranscriptionResult> {
  const { file, seconds: audioSeconds } = await sixtySecondsOfSpeech();

  const service = await startService('transcription');
  try {
    const noteId = randomUUID();
    const started = performance.now();
    await submitAndUpload(service, noteId, file, 'Benchmark: 60 s of speech');
    const done = await pollTranscription(service, noteId, 600_000, POLL_INTERVAL_MS);
    const wallSeconds = (performance.now() - started) / 1000;

    const note = (await service.api('GET', `/v1/notes/${noteId}`)).body as {
      transcription_job: { status: string; created_at: number; updated_at: number };
      audio: { uploaded_at: number };
    };
    const job = note.transcription_job;
    if (job.status !== 'completed') throw new Error(`job ended ${job.status}`);
    const processingSeconds = (job.updated_at - job.created_at) / 1000;
    const workerSeconds = (job.updated_at - note.audio.uploaded_at) / 1000;
    return {
      audio_seconds: audioSeconds,
      poll_interval_seconds: POLL_INTERVAL_MS / 1000,
      wall_seconds: wallSeconds,
      rtf_end_to_end: wallSeconds / audioSeconds,
      processing_seconds: processingSeconds,
      rtf_processing: processingSeconds / audioSeconds,
      worker_seconds: workerSeconds,
      rtf_worker: workerSeconds / audioSeconds,
      script_words: words(PASSAGE),
      transcript_words: words(String(done.body.full_text ?? '')),
    };
  } finally {
    await service.stop();
  }
}

export function transcriptionTable(r: TranscriptionResult): string {
  const rows: Array<[string, string]> = [
    ['audio duration (flite slt, WAV)', `${r.audio_seconds.toFixed(1)} s`],
    [`wall time, submit → 200 (poll every ${r.poll_interval_seconds} s)`, `${r.wall_seconds.toFixed(1)} s`],
    ['RTF end to end', r.rtf_end_to_end.toFixed(3)],
    ['job processing, updated_at − created_at', `${r.processing_seconds.toFixed(1)} s`],
    ['RTF processing', r.rtf_processing.toFixed(3)],
    ['worker only, updated_at − audio.uploaded_at', `${r.worker_seconds.toFixed(1)} s`],
    ['RTF worker', r.rtf_worker.toFixed(3)],
    ['words: script / transcript', `${r.script_words} / ${r.transcript_words}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value.padStart(8)}`).join('\n');
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

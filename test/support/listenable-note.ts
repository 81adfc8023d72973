import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { buildTranscription } from '../../src/domain/transcript.ts';
import type { RecognitionNotice } from '../../src/ports/speech-to-text.ts';
import type { Services } from '../../src/wiring/services.ts';
import { storeCompletedTranscription } from './stored-notes.ts';

const run = promisify(execFile);

/** Words people say in meetings: the seeded transcript reads like speech, not like one repeated token. */
const VOCABULARY = (
  'we should ship the budget review before friday and ask maria about the launch plan because the ' +
  'customers need a clear answer on pricing so let us write down who owns each action item today ' +
  'the research team found three gaps in onboarding and the mobile app still crashes on older phones'
).split(' ');
const WORDS_PER_SEGMENT = 14;
const WORD_MS = 330;
/** A pause this long ends a segment (the transcript's rule is 800 ms). */
const PAUSE_MS = 900;
export const SEGMENT_MS = WORDS_PER_SEGMENT * WORD_MS + PAUSE_MS;

/**
 * A tone as long as the note (8 kHz mono MP3 at 8 kbit/s: two hours is some 7 MB), made once per
 * length with ffmpeg: something a browser plays and seeks in, standing for the recording.
 */
/**
 * The same length as a WebM video (a small moving test picture, VP8, with the tone as Opus sound):
 * what a screen recording uploaded as `video/webm` is, in codecs every Chromium build plays.
 */
async function videoOf(durationMs: number): Promise<string> {
  const file = join(tmpdir(), `notes-video-${durationMs}.webm`);
  if (existsSync(file)) return file;
  const seconds = (durationMs / 1000).toFixed(3);
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000'],
    ...['-t', seconds, '-c:v', 'libvpx', '-deadline', 'realtime', '-b:v', '200k', '-c:a', 'libopus'],
    `${file}.part.webm`,
  ]);
  await run('mv', [`${file}.part.webm`, file]);
  return file;
}

async function recordingOf(durationMs: number): Promise<string> {
  const file = join(tmpdir(), `notes-tone-${durationMs}.mp3`);
  if (existsSync(file)) return file;
  const seconds = (durationMs / 1000).toFixed(3);
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=220:sample_rate=8000',
    '-t',
    seconds,
    '-ac',
    '1',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '8k',
    `${file}.part.mp3`,
  ]);
  await run('mv', [`${file}.part.mp3`, file]);
  return file;
}

/**
 * A processed note with a playable recording, written straight through the runtime's stores as the
 * transcription worker leaves one: `segments` segments of 14 timed words (two speakers taking turns,
 * every seventh word scored unsure), and a tone of the transcript's length as its audio (with `video`, a WebM video with that tone as sound). For browser
 * tests and benchmarks that need a long note at once, without recognising two hours of speech.
 */
export async function storeListenableNote(
  services: Pick<Services, 'notes' | 'blobs'>,
  account: string,
  /** `notice`: what the recogniser found about the recording as a whole (a low-confidence warning). */
  note: { id: string; title: string; segments: number; video?: boolean; notice?: RecognitionNotice },
): Promise<{ durationMs: number }> {
  const words = [];
  for (let segment = 0; segment < note.segments; segment++) {
    for (let index = 0; index < WORDS_PER_SEGMENT; index++) {
      const start_ms = segment * SEGMENT_MS + index * WORD_MS;
      const n = segment * WORDS_PER_SEGMENT + index;
      words.push({
        text: VOCABULARY[(n * 7 + segment) % VOCABULARY.length] as string,
        start_ms,
        end_ms: start_ms + WORD_MS - 30,
        speaker: segment % 3 === 2 ? 'Speaker 2' : 'Speaker 1',
        confidence: n % 7 === 3 ? 0.3 : 0.9,
      });
    }
  }
  const durationMs = note.segments * SEGMENT_MS;
  const transcription = buildTranscription(words, {
    duration_ms: durationMs,
    engine: 'bench',
    language: 'en-US',
    notice: note.notice,
  });
  const audio = note.video ? await videoOf(durationMs) : await recordingOf(durationMs);
  const contentType = note.video ? 'video/webm' : 'audio/mpeg';
  const now = Date.now();
  await services.notes.createNoteIfAbsent({
    account_id: account,
    note_id: note.id,
    title: note.title,
    state: 'active',
    created_at: now,
    updated_at: now,
    trashed_at: null,
    audio: { content_type: contentType, size_bytes: (await stat(audio)).size, uploaded_at: now },
  });
  await services.blobs.putJson(objectKeys.transcription(account, note.id), transcription);
  await storeCompletedTranscription(services, account, note.id, now);
  // Last: the upload's notification finds the note already transcribed, and leaves it so.
  await services.blobs.putFile(objectKeys.audio(account, note.id), audio, contentType);
  return { durationMs };
}

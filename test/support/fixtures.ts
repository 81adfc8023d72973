import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { atomically, exists, FFMPEG_QUIET, run, temporaryPath } from '../fixtures/fixture-files.ts';
import { ensureFixtures, type Fixtures } from '../fixtures/generate.ts';

let fixtures: Promise<Fixtures> | undefined;

function all(): Promise<Fixtures> {
  fixtures ??= ensureFixtures();
  return fixtures;
}

const CONTENT_TYPES = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

/** A flite recording of a committed script (about 25 s of clear speech), with its reference text. */
export async function speechFixture(
  voice: 'slt' | 'rms',
  format: 'wav' | 'mp3',
): Promise<{ file: string; contentType: string; script: string }> {
  const speech = (await all()).speech.find((candidate) => candidate.voice === voice);
  if (!speech) throw new Error(`no speech fixture for voice ${voice}`);
  return { file: speech[format], contentType: CONTENT_TYPES[format], script: speech.script };
}

/** Bytes that no decoder accepts. */
export async function notAudioFixture(): Promise<string> {
  return (await all()).notAudio;
}

/** A one-second video with no sound track at `path` (a screen recording made with the microphone off). */
export async function videoWithoutSound(path: string): Promise<string> {
  await run('ffmpeg', [...FFMPEG_QUIET, '-f', 'lavfi', '-i', 'testsrc=d=1', '-t', '1', path]);
  return path;
}

/**
 * A longer recording (the slt script `times` times over, about 25 s each), for work that must still
 * be running when a test stops, kills or deletes something. Built once with ffmpeg and kept with the
 * other generated fixtures.
 */
export async function longSpeechFixture(times = 4): Promise<{ file: string; contentType: string }> {
  const { dir } = await all();
  const { file } = await speechFixture('slt', 'wav');
  const path = join(dir, `slt-x${times}.wav`);
  if (!(await exists(path))) {
    await atomically(path, (tmp) =>
      run('ffmpeg', [
        ...FFMPEG_QUIET,
        '-stream_loop',
        String(times - 1),
        '-i',
        file,
        '-c',
        'copy',
        '-f',
        'wav',
        tmp,
      ]),
    );
  }
  return { file: path, contentType: CONTENT_TYPES.wav };
}

/** What the fake microphone says (flite's slt voice), for tests of recording in the browser. */
export const MICROPHONE_SENTENCE =
  'Please record the quarterly budget meeting with the marketing team tomorrow morning.';

/**
 * The sentence, then a second and a half of silence, as 16 kHz mono 16-bit WAV: what Chromium's
 * `--use-file-for-fake-audio-capture` plays as the microphone, over and over (the pause between
 * repeats keeps each one whole for the recogniser).
 */
export async function microphoneFixture(): Promise<{ file: string; sentence: string }> {
  const { dir } = await all();
  const path = join(dir, 'microphone-sentence.wav');
  if (!(await exists(path))) {
    const spoken = temporaryPath(path, 'flite.wav');
    try {
      await run('flite', ['-voice', 'slt', '-t', MICROPHONE_SENTENCE, '-o', spoken]);
      await atomically(path, (tmp) =>
        run('ffmpeg', [
          ...FFMPEG_QUIET,
          ...['-i', spoken, '-af', 'apad=pad_dur=1.5', '-ac', '1', '-ar', '16000'],
          ...['-c:a', 'pcm_s16le', '-f', 'wav', tmp],
        ]),
      );
    } finally {
      await rm(spoken, { force: true });
    }
  }
  return { file: path, sentence: MICROPHONE_SENTENCE };
}

/**
 * Cancelling speech work (issue 11: a deleted note's work stops): an aborted recognition or synthesis
 * stops promptly, kills its child processes, ends its worker threads, removes its temporary files and
 * rejects with an AbortError. Real pocketsphinx, ffmpeg, flite and diarizer threads.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { diarizationsRunning, diarizeFile } from '../../src/adapters/speech/diarization/diarize-file.ts';
import { DiarizingSpeechToText } from '../../src/adapters/speech/diarizing-speech-to-text.ts';
import { dictionaryForModel } from '../../src/adapters/speech/model-dictionary.ts';
import { DEFAULT_MODEL_DIR, PocketsphinxSpeechToText } from '../../src/adapters/speech/pocketsphinx.ts';
import { FliteSpeechSynthesizer } from '../../src/adapters/synthesis/flite-synthesizer.ts';
import type { RecognitionProgress } from '../../src/ports/speech-to-text.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import { descendants, isAlive, type ProcessEntry } from '../support/processes.ts';
import { waitUntil } from '../support/wait.ts';

/** "Within a second or two": killing processes and a thread takes milliseconds; this leaves room for a busy machine. */
const PROMPT_MS = 2_000;

let recording: string;
let scratch: string;
let output: string;
const savedTmpdir = process.env.TMPDIR;

beforeAll(async () => {
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('no two-speakers fixture');
  recording = conversation.audio; // 55 s of two flite voices
  output = await mkdtemp(join(tmpdir(), 'cancel-out-'));
});

afterAll(async () => {
  await rm(output, { recursive: true, force: true });
});

afterEach(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(scratch, { recursive: true, force: true });
});

/** A temporary folder of the test's own, made the process's temp folder: what the code leaves is visible. */
async function privateTmpdir(): Promise<string> {
  scratch = await mkdtemp(join(tmpdir(), 'cancel-tmp-'));
  process.env.TMPDIR = scratch;
  return scratch;
}

/** Aborts, then waits for the outcome; returns the error and how long the work took to stop. */
async function abortAndWait(controller: AbortController, work: Promise<unknown>) {
  const started = performance.now();
  controller.abort();
  const error = await work.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  return { error, stoppedInMs: performance.now() - started };
}

/**
 * Every process the work started (running minus those there before it) has exited, and no other is
 * left. A killed process closes its pipes (which is what the adapters wait for) a moment before the
 * kernel marks it exited, so each gets a short grace.
 */
async function expectAllGone(running: ProcessEntry[], before: ProcessEntry[]): Promise<void> {
  const earlier = new Set(before.map((entry) => entry.pid));
  const started = running.filter((entry) => !earlier.has(entry.pid));
  expect(started.length).toBeGreaterThan(0);
  const deadline = Date.now() + 500;
  for (const { pid, name } of started) {
    while ((await isAlive(pid)) && Date.now() < deadline) await sleep(10);
    expect(await isAlive(pid), `${name} (${pid})`).toBe(false);
  }
  const left = (await descendants()).filter((entry) => !earlier.has(entry.pid));
  expect(left).toEqual([]);
}

describe('cancelling recognition (pocketsphinx with the diarizer)', () => {
  it('aborted mid-way through a 55 s recording, it stops within two seconds and leaves no process, thread or temp file', async () => {
    // tsx, which loads the thread's TypeScript in tests, keeps its transform cache in the temp folder
    // (and may start an esbuild service): a first run starts the thread before the folder is swapped.
    await diarizeFile(recording);
    // Likewise the dictionary of the model's words: made once per process, reused by every run.
    await dictionaryForModel(
      join(DEFAULT_MODEL_DIR, 'cmudict-en-us.dict'),
      join(DEFAULT_MODEL_DIR, 'en-us.lm.bin'),
      tmpdir(),
    );
    const before = await descendants();
    const tmp = await privateTmpdir();
    const engine = new DiarizingSpeechToText(new PocketsphinxSpeechToText());
    const controller = new AbortController();
    let midway!: () => void;
    const reachedMidway = new Promise<void>((resolve) => (midway = resolve));
    const onProgress = (progress: RecognitionProgress) => {
      if (progress.stage === 'recognizing' && (progress.fraction ?? 0) >= 0.3) midway();
    };
    const work = engine.transcribe(recording, onProgress, {}, controller.signal);
    work.catch(() => {});
    await reachedMidway;

    const running = await descendants();
    const names = running.map((entry) => entry.name);
    expect(names.some((name) => name.startsWith('pocketsphinx'))).toBe(true);
    // Decoded once, before recognition: the chunks and the diarizer read that file, no ffmpeg is left.
    expect(names.filter((name) => name === 'ffmpeg')).toEqual([]);
    expect(await readdir(tmp)).toHaveLength(1); // the decoded recording's private folder

    const { error, stoppedInMs } = await abortAndWait(controller, work);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(stoppedInMs).toBeLessThan(PROMPT_MS);
    await expectAllGone(running, before);
    expect(diarizationsRunning()).toBe(0);
    expect(await readdir(tmp)).toEqual([]);
  });

  it('aborted while ffmpeg decodes the recording, it kills ffmpeg and leaves no process or decoded file', async () => {
    const before = await descendants();
    const tmp = await privateTmpdir();
    // `-re` makes ffmpeg read at the recording's own pace (55 s): still decoding when the abort comes.
    const slowFfmpeg = join(tmp, '..', `slow-ffmpeg-${process.pid}`);
    await writeFile(slowFfmpeg, '#!/bin/sh\nexec ffmpeg -re "$@"\n', { mode: 0o755 });
    try {
      const engine = new DiarizingSpeechToText(new PocketsphinxSpeechToText({ ffmpegPath: slowFfmpeg }));
      const controller = new AbortController();
      const work = engine.transcribe(recording, undefined, {}, controller.signal);
      work.catch(() => {});
      const decoding = async () => (await descendants()).some((entry) => entry.name === 'ffmpeg');
      await waitUntil(decoding, 'ffmpeg to decode');
      const running = await descendants();
      expect(running.some((entry) => entry.name.startsWith('pocketsphinx'))).toBe(false);
      expect(diarizationsRunning()).toBe(0); // the diarizer waits for the decoded file

      const { error, stoppedInMs } = await abortAndWait(controller, work);
      expect(error).toMatchObject({ name: 'AbortError' });
      expect(stoppedInMs).toBeLessThan(PROMPT_MS);
      await expectAllGone(running, before);
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      await rm(slowFfmpeg, { force: true });
    }
  });

  it('a diarization aborted mid-way ends its thread and its ffmpeg at once', async () => {
    await diarizeFile(recording); // see above: tsx in the thread
    const before = await descendants();
    const controller = new AbortController();
    const work = diarizeFile(recording, {}, controller.signal);
    work.catch(() => {});
    await waitUntil(async () => diarizationsRunning() === 1, 'the diarization to run');
    const running = await descendants();
    expect(running.some((entry) => entry.name === 'ffmpeg')).toBe(true);

    const { error, stoppedInMs } = await abortAndWait(controller, work);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(stoppedInMs).toBeLessThan(PROMPT_MS);
    expect(diarizationsRunning()).toBe(0);
    await expectAllGone(running, before);
  });

  it('an abort before the start rejects at once and starts nothing', async () => {
    const before = await descendants();
    const engine = new DiarizingSpeechToText(new PocketsphinxSpeechToText());
    const error = await engine.transcribe(recording, undefined, {}, AbortSignal.abort()).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(await descendants()).toEqual(before);
    expect(diarizationsRunning()).toBe(0);
  });

  it('names the rejection AbortError whatever the reason the signal was aborted with', async () => {
    const before = await descendants();
    const controller = new AbortController();
    const work = new PocketsphinxSpeechToText().transcribe(recording, undefined, {}, controller.signal);
    controller.abort(new Error('note deleted'));
    const error = await work.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toMatchObject({ name: 'AbortError', cause: { message: 'note deleted' } });
    expect(await descendants()).toEqual(before);
  });
});

describe('cancelling podcast synthesis (flite and ffmpeg)', () => {
  const sentence =
    'This is a long line of the podcast script, spoken slowly so that rendering it takes a while, ' +
    'and then the other host answers with another long sentence about the plan for next week.';
  const lines = Array.from({ length: 40 }, (_, index) => ({
    voice: index % 2 === 0 ? 'slt' : 'rms',
    text: `${sentence} Line ${index + 1}.`,
  }));

  const phases = [
    { when: 'while lines are rendered', program: 'flite', leaves: 'removes its WAV files and writes no MP3' },
    {
      when: 'while the MP3 is encoded',
      program: 'ffmpeg',
      leaves: 'leaves neither the MP3 nor its partial file',
    },
  ];
  for (const { when, program, leaves } of phases) {
    it(`aborted ${when}, it kills ${program}, ${leaves}`, async () => {
      const before = await descendants();
      const tmp = await privateTmpdir();
      const synthesizer = new FliteSpeechSynthesizer({ tmpDir: tmp });
      const controller = new AbortController();
      const work = synthesizer.synthesize(lines, join(output, 'podcast.mp3'), controller.signal);
      work.catch(() => {});
      const isRunning = async () => (await descendants()).some((entry) => entry.name === program);
      await waitUntil(isRunning, `${program} to run`);

      const running = await descendants();
      const { error, stoppedInMs } = await abortAndWait(controller, work);
      expect(error).toMatchObject({ name: 'AbortError' });
      expect(stoppedInMs).toBeLessThan(PROMPT_MS);
      await expectAllGone(running, before);
      expect(await readdir(tmp)).toEqual([]);
      expect(await readdir(output)).toEqual([]);
    });
  }
});

/**
 * Each recording is decoded once (issue 23): one ffmpeg writes a PCM file that the recogniser's chunks
 * and the diarizer all read, and that file is gone after every outcome. ffmpeg runs are counted by a
 * wrapper on the engine's ffmpegPath that logs each call and then runs the real ffmpeg.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CpuSlots } from '../../src/adapters/speech/cpu-slots.ts';
import { decodeRecording, pcmByteRange } from '../../src/adapters/speech/decoded-recording.ts';
import { diarizeFile, diarizePcmFile } from '../../src/adapters/speech/diarization/diarize-file.ts';
import { DiarizingSpeechToText } from '../../src/adapters/speech/diarizing-speech-to-text.ts';
import { PCM_BYTES_PER_MS } from '../../src/adapters/speech/ffmpeg.ts';
import { PocketsphinxSpeechToText } from '../../src/adapters/speech/pocketsphinx.ts';
import { UnreadableAudioError } from '../../src/domain/errors.ts';
import type { SpeechToText } from '../../src/ports/speech-to-text.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import { notAudioFixture, videoWithoutSound } from '../support/fixtures.ts';
import { canMountTmpfs } from '../support/tmpfs.ts';

const SLOW = 180_000;

let dir: string;
let scratchDir: string;
let ffmpegLog: string;
let countingFfmpeg: string;
let recording: string;

beforeAll(async () => {
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('no two-speakers fixture');
  recording = conversation.audio; // 55 s of two flite voices
  dir = await mkdtemp(join(tmpdir(), 'decode-once-'));
  ffmpegLog = join(dir, 'ffmpeg-calls.log');
  countingFfmpeg = join(dir, 'ffmpeg');
  // One line per run (no arguments: they hold paths), then the real ffmpeg in its place.
  await writeFile(countingFfmpeg, `#!/bin/sh\necho run >> '${ffmpegLog}'\nexec ffmpeg "$@"\n`, {
    mode: 0o755,
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await rm(ffmpegLog, { force: true });
  scratchDir = await mkdtemp(join(dir, 'scratch-'));
});

async function ffmpegRuns(): Promise<number> {
  const log = await readFile(ffmpegLog, 'utf8').catch(() => '');
  return log.split('\n').filter((line) => line === 'run').length;
}

/** pocketsphinx in 20 s chunks, two at once, decoding through the counting wrapper. */
function chunkedEngine(slots: CpuSlots, options: { pocketsphinxPath?: string } = {}) {
  return new PocketsphinxSpeechToText({
    ffmpegPath: countingFfmpeg,
    chunkMs: 20_000,
    concurrency: 2,
    slots,
    scratchDir,
    ...options,
  });
}

describe('a recording is decoded once for the recogniser and the diarizer', () => {
  it(
    'recognises a 55 s two-voice recording in chunks, two at once, with speakers, through a single ffmpeg run, and removes the decoded file',
    async () => {
      const slots = new CpuSlots(2);
      let mostAtOnce = 0;
      const engine = new DiarizingSpeechToText(chunkedEngine(slots), { ffmpegPath: countingFfmpeg });
      const result = await engine.transcribe(recording, () => {
        mostAtOnce = Math.max(mostAtOnce, slots.inUse);
      });
      expect(await ffmpegRuns()).toBe(1);
      expect(mostAtOnce).toBe(2); // chunked: two recognisers read the same file at once
      expect(new Set(result.words.map((word) => word.speaker)).size).toBeGreaterThanOrEqual(2);
      expect(result.words.length).toBeGreaterThan(50);
      expect(await readdir(scratchDir)).toEqual([]);
    },
    SLOW,
  );

  it(
    'gives an engine that needs the original file that file, and the diarizer decodes with an ffmpeg of its own',
    async () => {
      const pocketsphinx = chunkedEngine(new CpuSlots(2));
      // Reads the original path, as the OpenAI-compatible engine does (it uploads the file).
      const originalFileEngine: SpeechToText = {
        transcribe: (path, onProgress, hints, signal) =>
          pocketsphinx.transcribe(path, onProgress, hints, signal),
      };
      const result = await new DiarizingSpeechToText(originalFileEngine, {
        ffmpegPath: countingFfmpeg,
      }).transcribe(recording);
      expect(await ffmpegRuns()).toBe(2); // the engine's decoding and the diarizer's
      expect(new Set(result.words.map((word) => word.speaker)).size).toBeGreaterThanOrEqual(2);
      expect(await readdir(scratchDir)).toEqual([]);
    },
    SLOW,
  );

  it(
    'removes the decoded file when recognition fails, and the failure is the recogniser’s',
    async () => {
      const engine = new DiarizingSpeechToText(
        chunkedEngine(new CpuSlots(2), { pocketsphinxPath: '/nonexistent/pocketsphinx_continuous' }),
      );
      const error = await engine.transcribe(recording).catch((caught: unknown) => caught);
      expect((error as Error).message).toContain('/nonexistent/pocketsphinx_continuous');
      expect(await ffmpegRuns()).toBe(1);
      expect(await readdir(scratchDir)).toEqual([]);
    },
    SLOW,
  );

  it('says the recogniser has no model before decoding anything, with speakers or without', async () => {
    const missing = join(dir, 'no-model-here');
    const plain = new PocketsphinxSpeechToText({ ffmpegPath: countingFfmpeg, modelDir: missing, scratchDir });
    const withSpeakers = new DiarizingSpeechToText(plain, { ffmpegPath: countingFfmpeg });
    for (const engine of [plain, withSpeakers]) {
      await expect(engine.transcribe(recording)).rejects.toThrow(
        `pocketsphinx model not found in ${missing}`,
      );
    }
    expect(await ffmpegRuns()).toBe(0);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it('rejects a file that is not audio with UnreadableAudioError before any recogniser starts, leaving no file', async () => {
    const engine = new DiarizingSpeechToText(chunkedEngine(new CpuSlots(2)));
    const stages: string[] = [];
    const error = await engine
      .transcribe(await notAudioFixture(), ({ stage }) => {
        stages.push(stage);
      })
      .catch((caught: unknown) => caught);
    expect(stages).not.toContain('recognizing');
    expect(error).toBeInstanceOf(UnreadableAudioError);
    expect((error as Error).message).toMatch(
      /^The uploaded file is not a recognisable audio format \(ffmpeg: /,
    );
    expect(await readdir(scratchDir)).toEqual([]);
  });
});

describe('decodeRecording', () => {
  it('writes 16 kHz mono s16le samples whose count gives the exact duration, in a folder only its owner can open', async () => {
    const decoded = await decodeRecording(recording, { scratchDir });
    try {
      const bytes = (await readFile(decoded.path)).length;
      expect(decoded.durationMs).toBe(bytes / PCM_BYTES_PER_MS);
      expect(decoded.durationMs).toBeGreaterThan(50_000);
      const [folder] = await readdir(scratchDir);
      const mode = execFileSync('stat', ['-c', '%a', join(scratchDir, folder as string)])
        .toString()
        .trim();
      expect(mode).toBe('700');
    } finally {
      await decoded.remove();
    }
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it('gives the diarizer the same speaker turns from the decoded file as from the original', async () => {
    const decoded = await decodeRecording(recording, { scratchDir });
    try {
      const fromPcm = await diarizePcmFile(decoded.path);
      expect(new Set(fromPcm.map((turn) => turn.speaker)).size).toBeGreaterThanOrEqual(2);
      expect(fromPcm).toEqual(await diarizeFile(recording));
    } finally {
      await decoded.remove();
    }
  });

  it('maps a chunk to whole samples of the file: an even start and an inclusive end', () => {
    expect(pcmByteRange({ startMs: 0 })).toEqual({ start: 0 });
    expect(pcmByteRange({ startMs: 18_000, durationMs: 22_000 })).toEqual({
      start: 18_000 * PCM_BYTES_PER_MS,
      end: 40_000 * PCM_BYTES_PER_MS - 1,
    });
    // 0.05 ms is 1.6 bytes: rounded to bytes it would be odd, and every sample's bytes swapped.
    for (const startMs of [0.03, 0.05, 0.09, 1234.567]) expect(pcmByteRange({ startMs }).start % 2).toBe(0);
  });

  it('rejects a video without a sound track with the no-sound-track message, leaving no file', async () => {
    const video = await videoWithoutSound(join(dir, 'video-only.mp4'));
    const error = await decodeRecording(video, { scratchDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnreadableAudioError);
    expect((error as Error).message).toMatch(/^This file has no sound track/);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it.skipIf(!canMountTmpfs())(
    'stops at the disk reserve with a transient ENOSPC error, not as unreadable audio, leaving no file',
    async () => {
      const small = await mkdtemp(join(dir, 'small-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
      try {
        // 55 s of PCM is about 1.8 MB: more than the 1 MB file system holds.
        const error = await decodeRecording(recording, { scratchDir: small }).catch(
          (caught: unknown) => caught,
        );
        expect(error).not.toBeInstanceOf(UnreadableAudioError);
        // Stopped by the reserve (`-fs`), not by ffmpeg meeting a full disk that the database and
        // the other jobs write to as well.
        expect(error).toMatchObject({
          code: 'ENOSPC',
          message: expect.stringMatching(/^Not enough free disk space to decode the recording/),
        });
        expect(await readdir(small)).toEqual([]);
      } finally {
        execFileSync('umount', [small]);
      }
    },
  );
});

import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRecording } from '../../src/adapters/speech/decoded-recording.ts';
import { WhisperSpeechToText } from '../../src/adapters/speech/whisper/whisper-speech-to-text.ts';
import type { RecognitionProgress } from '../../src/ports/speech-to-text.ts';
import { noSpeechRecording } from '../fixtures/confidence-material.ts';
import { longSpeechFixture, speechFixture } from '../support/fixtures.ts';
import { waitUntil } from '../support/wait.ts';
import { whisperTestModel } from '../support/whisper-test-model.ts';

/**
 * The Whisper adapter with the real binding and whisper.cpp, on the random-weight test model: the
 * words are nonsense, so these check what the adapter does with them (chunks, clocks, speech check,
 * progress, stopping), not what Whisper hears.
 */

let scratchDir: string;
let modelPath: string;

beforeAll(async () => {
  scratchDir = await mkdtemp(join(tmpdir(), 'notes-whisper-adapter-'));
  modelPath = await whisperTestModel();
}, 60_000);

afterAll(() => rm(scratchDir, { recursive: true, force: true }));

const engine = (options: Partial<ConstructorParameters<typeof WhisperSpeechToText>[0]> = {}) =>
  new WhisperSpeechToText({ modelPath, language: 'en', scratchDir, ...options });

/** This process's whisper.cpp children running now (their command line names whisper-process). */
function whisperProcesses(): number {
  const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes('whisper-process')).length;
}

describe('the Whisper adapter', () => {
  it("hears a long recording in chunks and puts every word on the recording's clock", async () => {
    // Two chunks of ~25 s. The random-weight model is slow on a long window (whisper.cpp finds its
    // guesses poor and decodes again at rising temperatures), so no more than two.
    const { file } = await longSpeechFixture(2);
    const progress: RecognitionProgress[] = [];
    const result = await engine({ chunkMs: 25_000, concurrency: 2 }).transcribe(file, (report) => {
      progress.push(report);
    });
    expect(result.duration_ms).toBeGreaterThan(45_000);
    expect(result.language).toBe('en');
    expect(result.words.length).toBeGreaterThan(1);
    const starts = result.words.map((word) => word.start_ms);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    for (const word of result.words) {
      expect(word.end_ms).toBeLessThanOrEqual(result.duration_ms);
      expect(word.start_ms).toBeLessThanOrEqual(word.end_ms);
    }
    // Words come from more than the first chunk: later chunks were heard and moved onto the recording's clock.
    expect(Math.max(...starts)).toBeGreaterThan(25_000);
    expect(progress[0]).toEqual({ stage: 'decoding' });
    expect(progress.at(-1)).toEqual({ stage: 'recognizing', fraction: 1 });
    expect(await readdir(scratchDir)).toEqual([]);
  }, 180_000);

  it('names the language a multilingual model detected when none was set', async () => {
    const { file } = await speechFixture('slt', 'wav');
    const result = await engine({ language: 'auto' }).transcribe(file);
    // The random weights detect some language; which one says nothing. That it comes back as a code does.
    expect(result.language).toMatch(/^[a-z]{2,3}$/);
  });

  it.each(['two-tones', 'silence'] as const)(
    'keeps no invented words for a recording without speech (%s): no_speech',
    async (name) => {
      const result = await engine().transcribe(await noSpeechRecording(name));
      expect(result.words).toEqual([]);
      expect(result.notice).toBe('no_speech');
    },
  );

  it('stops its whisper.cpp processes and removes the decoded audio when the job is aborted', async () => {
    const { file } = await longSpeechFixture(4);
    const controller = new AbortController();
    const started = engine({ chunkMs: 30_000 }).transcribe(file, undefined, undefined, controller.signal);
    started.catch(() => undefined);
    await waitUntil(() => whisperProcesses() > 0, 'a whisper.cpp process to start', 30_000);
    controller.abort();
    await expect(started).rejects.toMatchObject({ name: 'AbortError' });
    expect(whisperProcesses()).toBe(0);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it('fails with a message, not a hang, when the file is not a whisper.cpp model', async () => {
    const notAModel = join(scratchDir, 'not-a-model.bin');
    await writeFile(notAModel, Buffer.alloc(4096, 7));
    const { file } = await speechFixture('slt', 'wav');
    const recording = await decodeRecording(file, { scratchDir });
    try {
      const error = await engine({ modelPath: notAModel })
        .transcribeDecoded(recording)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/^whisper\.cpp (exited|was killed)/);
      expect((error as Error).message).not.toContain(scratchDir);
    } finally {
      await recording.remove();
      await rm(notAModel, { force: true });
    }
  });
});

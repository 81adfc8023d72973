import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PocketsphinxSpeechToText } from '../../src/adapters/speech/pocketsphinx.ts';
import {
  ProvisionedSpeechToText,
  WhisperUnavailableError,
} from '../../src/adapters/speech/whisper/provisioned-speech-to-text.ts';
import { STATE_FILE, type WhisperState } from '../../src/adapters/speech/whisper/whisper-provision.ts';
import type { RecognitionProgress } from '../../src/ports/speech-to-text.ts';
import { speechFixture } from '../support/fixtures.ts';
import { whisperTestModel } from '../support/whisper-test-model.ts';

let dir: string;
let recording: string;
let model: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'notes-provisioned-'));
  recording = (await speechFixture('slt', 'wav')).file;
  model = await whisperTestModel();
}, 60_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

async function writeState(modelDir: string, state: WhisperState): Promise<void> {
  await writeFile(join(modelDir, STATE_FILE), JSON.stringify(state));
}

function engine(modelDir: string, mode: 'auto' | 'whisper') {
  return new ProvisionedSpeechToText({
    mode,
    modelDir,
    model: 'base.en',
    language: 'en',
    whisper: { scratchDir: dir },
    fallback: new PocketsphinxSpeechToText({ scratchDir: dir }),
    pollMs: 100,
  });
}

describe('the local default engine, as the runtime provisions Whisper', () => {
  it('waits while the model is fetched, showing the fetch as the stage, then transcribes with Whisper', async () => {
    const modelDir = await mkdtemp(join(dir, 'fetching-'));
    await writeState(modelDir, {
      state: 'fetching',
      model: 'base.en',
      progress: { bytes: 10, fraction: 0.4 },
    });
    const stages: RecognitionProgress[] = [];
    const result = engine(modelDir, 'auto').transcribe(recording, (progress) => {
      stages.push(progress);
    });
    await new Promise((done) => setTimeout(done, 400));
    await writeState(modelDir, { state: 'ready', model, path: model, multilingual: true });
    const heard = await result;
    expect(stages[0]).toEqual({ stage: 'fetching_model', fraction: 0.4 });
    expect(stages.some((progress) => progress.stage === 'recognizing')).toBe(true);
    expect(heard.engine).toBe('whisper.cpp:ggml-random-weights.bin');
    expect(heard.fallback).toBeUndefined();
    expect(heard.language).toBe('en');
  });

  it('falls back to pocketsphinx when Whisper is unavailable, saying why and how to get it', async () => {
    const modelDir = await mkdtemp(join(dir, 'offline-'));
    await writeState(modelDir, {
      state: 'unavailable',
      model: 'base.en',
      reason: 'cannot reach huggingface.co',
      remedy: 'connect this machine to the internet',
    });
    const heard = await engine(modelDir, 'auto').transcribe(recording);
    expect(heard.engine).toBe('local-pocketsphinx');
    expect(heard.words.length).toBeGreaterThan(10);
    expect(heard.fallback).toBe(
      'Whisper (base.en) is unavailable: cannot reach huggingface.co. This transcript was made by pocketsphinx, ' +
        'which is far less accurate. To get Whisper: connect this machine to the internet; then transcribe this note again.',
    );
  });

  it('never falls back when Whisper was configured explicitly: the job fails with the reason', async () => {
    const modelDir = await mkdtemp(join(dir, 'explicit-'));
    await writeState(modelDir, {
      state: 'unavailable',
      model: 'small',
      reason: 'the disk is full',
      remedy: 'free disk space',
    });
    const failure = await engine(modelDir, 'whisper')
      .transcribe(recording)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WhisperUnavailableError);
    expect((failure as Error).message).toBe(
      'Whisper (small) is unavailable: the disk is full; free disk space.',
    );
  });

  it('stops waiting, saying why, when the runtime wrote no state at all', async () => {
    const modelDir = await mkdtemp(join(dir, 'unreported-'));
    const waiting = new ProvisionedSpeechToText({
      mode: 'whisper',
      modelDir,
      model: 'base.en',
      whisper: { scratchDir: dir },
      fallback: new PocketsphinxSpeechToText({ scratchDir: dir }),
      pollMs: 50,
      unreportedMs: 200,
    }).transcribe(recording);
    await expect(waiting).rejects.toThrow(
      /^Whisper \(base\.en\) is unavailable: no state was written to whisper-state\.json in the models folder; /,
    );
  });

  it('stops waiting for the model when the job is aborted', async () => {
    const modelDir = await mkdtemp(join(dir, 'aborted-'));
    const controller = new AbortController();
    const waiting = engine(modelDir, 'auto').transcribe(recording, undefined, undefined, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });
});

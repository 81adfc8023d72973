import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SPEAKER_TEST_MODEL_DIM, writeSpeakerTestModel } from '../../scripts/speaker-test-model.ts';
import { speakerTestModel } from '../support/speaker-test-model.ts';

/** The part of sherpa-onnx-node's speaker-identification API these tests use. */
interface Wave {
  sampleRate: number;
  samples: Float32Array;
}
interface Stream {
  acceptWaveform(wave: Wave): void;
  inputFinished(): void;
}
interface Extractor {
  dim: number;
  createStream(): Stream;
  isReady(stream: Stream): boolean;
  compute(stream: Stream): Float32Array;
}
interface Sherpa {
  SpeakerEmbeddingExtractor: new (config: { model: string; numThreads?: number }) => Extractor;
}

const SAMPLE_RATE = 16_000;
const SECONDS = 2;

function tone(hz: number): Float32Array {
  return Float32Array.from(
    { length: SAMPLE_RATE * SECONDS },
    (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE),
  );
}

/** White noise from a fixed seed, so the test hears the same noise every run. */
function whiteNoise(): Float32Array {
  let state = 1;
  return Float32Array.from({ length: SAMPLE_RATE * SECONDS }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  });
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  a.forEach((value, i) => {
    const other = b[i] ?? 0;
    dot += value * other;
    aa += value * value;
    bb += other * other;
  });
  return dot / Math.sqrt(aa * bb);
}

let extractor: Extractor;

function embed(samples: Float32Array): Float32Array {
  const stream = extractor.createStream();
  stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples });
  stream.inputFinished();
  // sherpa-onnx hands back garbage rather than failing when no frame is ready.
  expect(extractor.isReady(stream)).toBe(true);
  return extractor.compute(stream);
}

beforeAll(async () => {
  const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as Sherpa;
  extractor = new sherpa.SpeakerEmbeddingExtractor({ model: await speakerTestModel(), numThreads: 1 });
});

describe('the random-weight speaker-embedding test model', () => {
  it('loads in sherpa-onnx as a WeSpeaker model and declares the dimension of its embeddings', () => {
    expect(extractor.dim).toBe(SPEAKER_TEST_MODEL_DIM);
  });

  it('gives an embedding of the declared dimension for two seconds of audio, every value finite', () => {
    const embedding = embed(tone(200));
    expect(embedding).toHaveLength(SPEAKER_TEST_MODEL_DIM);
    expect(embedding.every(Number.isFinite)).toBe(true);
    expect(embedding.some((value) => value !== 0)).toBe(true);
  });

  it('gives the same embedding for the same audio and a different one for different audio', () => {
    const once = embed(tone(200));
    const again = embed(tone(200));
    const noise = embed(whiteNoise());
    expect(Array.from(again)).toEqual(Array.from(once));
    // A tone's spectrum and noise's are far apart, and the model is a linear map of the mean spectrum.
    expect(cosine(once, noise)).toBeLessThan(0.9);
  });

  it('is written as the same bytes every time, so the copy cached in the temp dir is the one the script writes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'speaker-test-model-'));
    try {
      const fresh = join(dir, 'model.onnx');
      await writeSpeakerTestModel(fresh);
      const cached = await speakerTestModel();
      expect(
        (await readFile(fresh)).equals(await readFile(cached)),
        `${cached} is stale: delete it and run again`,
      ).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

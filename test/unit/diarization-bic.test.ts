import { describe, expect, it } from 'vitest';
import { deltaBic, type Gaussian, mergeByBic } from '../../src/adapters/speech/diarization/bic.ts';
import { BlockStats, CEPSTRA } from '../../src/adapters/speech/diarization/windows.ts';

/** Deterministic frames c0..c12 around `centre` (a linear congruential generator, not Math.random). */
function frames(centre: number, count: number, seed: number): Float64Array[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
  return Array.from({ length: count }, () =>
    Float64Array.from({ length: CEPSTRA + 1 }, () => centre + 4 * next()),
  );
}

function gaussian(points: Float64Array[]): Gaussian {
  const g: Gaussian = { n: 0, sum: new Float64Array(CEPSTRA), sumsq: new Float64Array(CEPSTRA) };
  for (const point of points) {
    g.n++;
    for (let c = 0; c < CEPSTRA; c++) {
      const value = point[c + 1] ?? 0;
      g.sum[c] = (g.sum[c] ?? 0) + value;
      g.sumsq[c] = (g.sumsq[c] ?? 0) + value * value;
    }
  }
  return g;
}

describe('BIC speaker decision', () => {
  it('scores two halves of one voice as one speaker and two distinct voices as two', () => {
    expect(deltaBic(gaussian(frames(0, 300, 1)), gaussian(frames(0, 300, 2)))).toBeLessThan(0);
    expect(deltaBic(gaussian(frames(0, 300, 1)), gaussian(frames(3, 300, 2)))).toBeGreaterThan(0);
  });

  it('merges the clusters of one voice and keeps the other voice apart', () => {
    const stats = new BlockStats();
    // Blocks 0-3 and 8-11 one voice (given two labels, as an over-split clustering would), 4-7 another.
    const voiceOf = (block: number) => (block >= 4 && block < 8 ? 3 : 0);
    for (let block = 0; block < 12; block++)
      for (const frame of frames(voiceOf(block), 25, block + 1)) stats.add(block, frame, 0);
    const labels = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
    const mapping = mergeByBic(labels, stats);
    expect(new Set(mapping.values()).size).toBe(2);
    expect(mapping.get(0)).toBe(mapping.get(2));
    expect(mapping.get(1)).not.toBe(mapping.get(0));
  });
});

describe('BIC with a speaker count to reach', () => {
  it('merges the closest clusters down to exactly the hinted count, even voices BIC would keep apart', () => {
    const stats = new BlockStats();
    const voiceOf = (block: number) => Math.floor(block / 4) * 3; // three clearly different voices
    for (let block = 0; block < 12; block++)
      for (const frame of frames(voiceOf(block), 25, block + 1)) stats.add(block, frame, 0);
    const labels = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
    expect(new Set(mergeByBic(labels, stats).values()).size).toBe(3);
    const two = mergeByBic(labels, stats, undefined, 2);
    expect(new Set(two.values()).size).toBe(2);
    // The two nearest voices (centres 0 and 3, or 3 and 6) are the ones joined, never 0 with 6 alone.
    expect(two.get(1) === two.get(0) || two.get(1) === two.get(2)).toBe(true);
  });
});

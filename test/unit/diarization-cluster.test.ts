import { describe, expect, it } from 'vitest';
import { cluster } from '../../src/adapters/speech/diarization/cluster.ts';

/** Deterministic points around `centre` (a small linear congruential generator, not Math.random). */
function blob(centre: number[], count: number, spread: number, seed: number): Float64Array[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
  return Array.from({ length: count }, () => Float64Array.from(centre, (c) => c + spread * next()));
}

describe('cluster', () => {
  it('finds two well separated groups and numbers them by first appearance', () => {
    const points = [...blob([5, 5, 5], 10, 0.5, 1), ...blob([0, 0, 0], 10, 0.5, 2)];
    const labels = cluster(points, { threshold: 1 });
    expect(labels.slice(0, 10)).toEqual(new Array(10).fill(0));
    expect(labels.slice(10)).toEqual(new Array(10).fill(1));
  });
  it('keeps one group as one cluster', () => {
    expect(new Set(cluster(blob([1, 2, 3], 30, 0.8, 3), { threshold: 1 })).size).toBe(1);
  });
  it('finds three groups, and forces a count when asked', () => {
    const points = [...blob([0, 0], 8, 0.4, 4), ...blob([4, 0], 8, 0.4, 5), ...blob([0, 4], 8, 0.4, 6)];
    expect(new Set(cluster(points, { threshold: 1 })).size).toBe(3);
    expect(new Set(cluster(points, { threshold: 1, clusters: 2 })).size).toBe(2);
  });
  it('folds a tiny cluster into its nearest neighbour', () => {
    const points = [...blob([0, 0], 40, 0.4, 7), [Float64Array.from([6, 6])]].flat();
    expect(new Set(cluster(points, { threshold: 1, minClusterShare: 0.05 })).size).toBe(1);
  });
  it('clusters a sample and assigns the rest when there are many points', () => {
    const points = [...blob([5, 5], 300, 0.5, 8), ...blob([0, 0], 300, 0.5, 9)];
    const labels = cluster(points, { threshold: 1, maxPoints: 100 });
    expect(new Set(labels.slice(0, 300))).toEqual(new Set([0]));
    expect(new Set(labels.slice(300))).toEqual(new Set([1]));
  });
});

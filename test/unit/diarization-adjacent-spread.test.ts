import { describe, expect, it } from 'vitest';
import { adjacentSpread } from '../../src/adapters/speech/diarization/diarize.ts';
import type { Window } from '../../src/adapters/speech/diarization/windows.ts';

/** 1 s windows (4 blocks) every 250 ms whose embedding is `value(start)` in every dimension. */
function windows(count: number, value: (startBlock: number) => number): Window[] {
  return Array.from({ length: count }, (_, startBlock) => ({
    startBlock,
    endBlock: startBlock + 4,
    speechFrames: 100,
    vector: new Float64Array(13).fill(value(startBlock)),
  }));
}

describe('the spread between neighbouring stretches of speech', () => {
  it('is the usual distance between a window and the next one that does not overlap it', () => {
    // Within a voice, neighbours differ by 0.5 (alternating sounds); the voice changes twice.
    const spread = adjacentSpread(windows(60, (start) => (start % 8 < 4 ? 0 : 0.5) + (start >= 30 ? 5 : 0)));
    expect(spread).toBeCloseTo(0.5, 6);
  });

  it('is larger for a recording whose neighbouring stretches differ more, so the threshold scales with it', () => {
    const running = adjacentSpread(windows(60, (start) => (start % 8 < 4 ? 0 : 0.4)));
    const isolatedWords = adjacentSpread(windows(60, (start) => (start % 8 < 4 ? 0 : 0.8)));
    expect(isolatedWords / running).toBeCloseTo(2, 6);
  });
});

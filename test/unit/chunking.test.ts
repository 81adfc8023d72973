import { describe, expect, it } from 'vitest';
import {
  type Chunk,
  chunkRange,
  mergeChunkWords,
  planChunks,
  runPool,
} from '../../src/adapters/speech/chunking.ts';
import type { RecognizedWord } from '../../src/ports/speech-to-text.ts';

const word = (text: string, start_ms: number, end_ms: number): RecognizedWord => ({ text, start_ms, end_ms });

describe('planChunks cuts a long recording into overlapping chunks', () => {
  it('keeps recordings shorter than 1.5 chunks as one chunk covering the whole file', () => {
    for (const duration of [0, 1_000, 60_000, 89_999]) {
      expect(planChunks(duration)).toEqual([
        { index: 0, startMs: 0, endMs: duration, keepFromMs: 0, keepToMs: Number.POSITIVE_INFINITY },
      ]);
    }
    expect(planChunks(90_000)).toHaveLength(2);
  });

  it('tiles the recording with kept spans and decodes the overlap on both sides, clamped to the file', () => {
    const chunks = planChunks(60_000, { chunkMs: 20_000, overlapMs: 2_000 });
    expect(chunks).toEqual([
      { index: 0, startMs: 0, endMs: 22_000, keepFromMs: 0, keepToMs: 20_000 },
      { index: 1, startMs: 18_000, endMs: 42_000, keepFromMs: 20_000, keepToMs: 40_000 },
      { index: 2, startMs: 38_000, endMs: 60_000, keepFromMs: 40_000, keepToMs: Number.POSITIVE_INFINITY },
    ]);
  });

  it('splits evenly so parallel recognisers get similar work, at whole milliseconds', () => {
    const chunks = planChunks(7_200_001, { chunkMs: 300_000 });
    expect(chunks).toHaveLength(24);
    for (const [i, chunk] of chunks.entries()) {
      const next = chunks[i + 1];
      if (next) expect(next.keepFromMs).toBe(chunk.keepToMs); // No gap, no double cover.
      expect(Number.isInteger(chunk.keepFromMs)).toBe(true);
      expect(chunk.startMs).toBe(Math.max(0, chunk.keepFromMs - 2_000));
    }
    expect(chunks.at(-1)?.endMs).toBe(7_200_001);
  });

  it('decodes a bounded range per chunk, and the last one to the end of the file', () => {
    const chunks = planChunks(60_000, { chunkMs: 20_000 });
    expect(chunks.map((chunk) => chunkRange(chunk, chunks.length))).toEqual([
      { startMs: 0, durationMs: 22_000 },
      { startMs: 18_000, durationMs: 24_000 },
      { startMs: 38_000 },
    ]);
  });

  it('rejects a nonsensical plan', () => {
    expect(() => planChunks(1000, { chunkMs: 0 })).toThrow(RangeError);
    expect(() => planChunks(1000, { overlapMs: -1 })).toThrow(RangeError);
  });
});

describe('mergeChunkWords keeps each word once, in order', () => {
  const [first, second] = planChunks(40_000, { chunkMs: 20_000, overlapMs: 2_000 }) as [Chunk, Chunk];

  it('keeps a word that straddles a boundary exactly once, from the chunk holding its midpoint', () => {
    // Both chunks hear "boundary" (19.7-20.5 s, midpoint 20.1 s) whole thanks to the overlap.
    const merged = mergeChunkWords([
      { chunk: first, words: [word('before', 18_500, 19_000), word('boundary', 19_700, 20_500)] },
      { chunk: second, words: [word('boundary', 19_710, 20_490), word('after', 21_000, 21_400)] },
    ]);
    expect(merged).toEqual([
      word('before', 18_500, 19_000),
      word('boundary', 19_710, 20_490),
      word('after', 21_000, 21_400),
    ]);
  });

  it('drops what a chunk hears only in its overlap, including a word cut at its decoded edge', () => {
    const merged = mergeChunkWords([
      { chunk: first, words: [word('one', 1_000, 1_500), word('cut', 21_800, 22_000)] },
      { chunk: second, words: [word('ut', 18_000, 18_200), word('two', 25_000, 25_300)] },
    ]);
    expect(merged.map((w) => w.text)).toEqual(['one', 'two']);
  });

  it('treats the kept span as end-exclusive: a midpoint on the boundary belongs to the later chunk', () => {
    const merged = mergeChunkWords([
      { chunk: first, words: [word('edge', 19_800, 20_200)] },
      { chunk: second, words: [word('edge', 19_800, 20_200)] },
    ]);
    expect(merged).toHaveLength(1);
  });

  it('orders by start time whatever order the chunks finished in', () => {
    const merged = mergeChunkWords([
      { chunk: second, words: [word('c', 30_000, 30_400)] },
      { chunk: first, words: [word('a', 100, 300), word('b', 10_000, 10_400)] },
    ]);
    expect(merged.map((w) => w.text)).toEqual(['a', 'b', 'c']);
  });
});

describe('runPool runs chunks concurrently and fails as a whole', () => {
  it('returns results in item order with at most `concurrency` running', async () => {
    let running = 0;
    let peak = 0;
    const results = await runPool([30, 10, 20, 5], 2, async (ms) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      return ms * 2;
    });
    expect(results).toEqual([60, 20, 40, 10]);
    expect(peak).toBe(2);
  });

  it('rethrows the first error, aborts the running tasks and starts no more', async () => {
    const started: number[] = [];
    let abortedSeen = false;
    const error = await runPool([0, 1, 2, 3], 2, async (item, signal) => {
      started.push(item);
      if (item === 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('chunk 0 failed');
      }
      await new Promise<void>((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          abortedSeen = true;
          reject(new Error('killed'));
        }),
      );
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('chunk 0 failed');
    expect(abortedSeen).toBe(true);
    expect(started).toEqual([0, 1]);
  });
});

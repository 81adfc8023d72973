import type { RecognizedWord } from '../../ports/speech-to-text.ts';
import { abortError, throwIfAborted } from './abort.ts';

/**
 * One stretch of a long recording, recognised on its own. `startMs..endMs` is read (from the recording decoded once): the kept span
 * plus `overlapMs` on each side, so a word cut by a boundary is heard whole by one of the two chunks.
 * Only words whose midpoint lies in `keepFromMs..keepToMs` (end exclusive) are kept; the kept spans
 * tile the recording, so each word is kept exactly once.
 */
export interface Chunk {
  index: number;
  startMs: number;
  endMs: number;
  keepFromMs: number;
  /** `Infinity` for the last chunk: everything to the end of the recording is kept. */
  keepToMs: number;
}

export interface ChunkPlanOptions {
  /** Target length of a kept span. Default 1 minute. */
  chunkMs?: number;
  /** Extra audio read on each side of a kept span. Default 2 s (longer than nearly all words). */
  overlapMs?: number;
}

/**
 * A minute: a recording's chunks are also the turns in which recordings share the recognisers
 * (cpu-slots.ts), so a short recording submitted during a long one waits for one such chunk at most.
 * Measured on 10 minutes of two voices with pocketsphinx: 1-minute chunks cost the same CPU as
 * 5-minute ones (66-72 s either way) and heard 1,817 words against 1,820 (docs/benchmarks.md,
 * "A short recording behind a long one"). A word count on synthetic speech, not an accuracy: word
 * error on held-out real recordings with 1-minute chunks has not been measured.
 */
export const DEFAULT_CHUNK_MS = 60_000;
export const DEFAULT_OVERLAP_MS = 2_000;

/**
 * Splits `durationMs` into equal kept spans of about `chunkMs` (between 0.75 and 1.5 times it), so
 * parallel recognisers get similar work. Anything shorter than 1.5 x `chunkMs` stays one chunk that
 * covers the whole file, exactly as recognised before chunking existed.
 */
export function planChunks(durationMs: number, options: ChunkPlanOptions = {}): Chunk[] {
  const chunkMs = options.chunkMs ?? DEFAULT_CHUNK_MS;
  const overlapMs = options.overlapMs ?? DEFAULT_OVERLAP_MS;
  if (!(chunkMs > 0) || overlapMs < 0) throw new RangeError('chunkMs must be > 0 and overlapMs >= 0');
  const total = Math.max(0, durationMs);
  const count = Math.max(1, Math.round(total / chunkMs));
  const boundary = (index: number) => Math.round((index * total) / count);
  const chunks: Chunk[] = [];
  for (let index = 0; index < count; index++) {
    const keepFromMs = boundary(index);
    const keepToMs = index === count - 1 ? Number.POSITIVE_INFINITY : boundary(index + 1);
    chunks.push({
      index,
      startMs: index === 0 ? 0 : Math.max(0, keepFromMs - overlapMs),
      endMs: index === count - 1 ? total : Math.min(total, keepToMs + overlapMs),
      keepFromMs,
      keepToMs,
    });
  }
  return chunks;
}

/** A stretch of the decoded recording to recognise on its own (one chunk of a long file). */
export interface PcmRange {
  startMs: number;
  /** Omitted: to the end of the file. */
  durationMs?: number;
}

/**
 * What is read of the decoded recording for `chunk`. The last chunk reads to the end of the file, so
 * the part of a millisecond that the planned whole milliseconds leave out is recognised too.
 */
export function chunkRange(chunk: Chunk, count: number): PcmRange {
  if (chunk.index === count - 1) return { startMs: chunk.startMs };
  return { startMs: chunk.startMs, durationMs: chunk.endMs - chunk.startMs };
}

/**
 * Joins per-chunk words (already on the recording's clock) into one list: each chunk keeps the words
 * whose midpoint is in its kept span, then a stable sort by start time, because two chunks' decoders
 * may place the words on either side of a boundary slightly differently.
 */
export function mergeChunkWords(
  results: readonly { chunk: Chunk; words: readonly RecognizedWord[] }[],
): RecognizedWord[] {
  const merged: RecognizedWord[] = [];
  for (const { chunk, words } of [...results].sort((a, b) => a.chunk.index - b.chunk.index)) {
    for (const word of words) {
      const midpoint = (word.start_ms + word.end_ms) / 2;
      if (midpoint >= chunk.keepFromMs && midpoint < chunk.keepToMs) merged.push(word);
    }
  }
  return merged.sort((a, b) => a.start_ms - b.start_ms);
}

/**
 * Runs `work` over `items` with at most `concurrency` at a time, in order of the items. The first
 * failure aborts the signal given to the others (so they can kill their processes) and is rethrown
 * once every started task has settled: nothing keeps running after the call returns. Aborting
 * `signal` does the same, and the call rejects with an `AbortError`.
 */
export async function runPool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, signal: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  throwIfAborted(signal);
  const controller = new AbortController();
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const onAbort = () => {
    failure ??= { error: abortError(signal as AbortSignal) };
    controller.abort();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, controller.signal);
      } catch (error) {
        // Later errors are usually the kills this one caused, not causes of their own.
        if (!failure) {
          failure = { error };
          controller.abort();
        }
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  signal?.removeEventListener('abort', onAbort);
  if (failure) throw failure.error;
  return results;
}

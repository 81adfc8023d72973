/**
 * Sufficient statistics per 250 ms block (count, sums and sums of squares of the speech frames'
 * MFCCs and log pitch), from which 1.5 s window embeddings are built. Only these are kept for the
 * whole recording (about 1 KB per second of audio), never the PCM or per-frame features.
 */
import { MFCC_COUNT } from './features.ts';

export const BLOCK_FRAMES = 25;
/** c1..c12: c0 is loudness, which says more about the microphone distance than the speaker. */
export const CEPSTRA = MFCC_COUNT - 1;
const N = 0;
const SUM = 1;
const SUMSQ = SUM + CEPSTRA;
const VOICED = SUMSQ + CEPSTRA;
const F0_SUM = VOICED + 1;
const F0_SUMSQ = F0_SUM + 1;
const STRIDE = F0_SUMSQ + 1;

export class BlockStats {
  private data = new Float64Array(STRIDE * 256);
  /** Number of blocks started so far. */
  count = 0;

  /** Adds one speech frame to block `block` (blocks are filled in order). */
  add(block: number, mfcc: Float64Array, f0: number): void {
    this.ensure(block);
    const base = block * STRIDE;
    const d = this.data;
    d[base + N] = (d[base + N] ?? 0) + 1;
    for (let c = 0; c < CEPSTRA; c++) {
      const value = mfcc[c + 1] ?? 0;
      d[base + SUM + c] = (d[base + SUM + c] ?? 0) + value;
      d[base + SUMSQ + c] = (d[base + SUMSQ + c] ?? 0) + value * value;
    }
    if (f0 > 0) {
      const logF0 = Math.log(f0);
      d[base + VOICED] = (d[base + VOICED] ?? 0) + 1;
      d[base + F0_SUM] = (d[base + F0_SUM] ?? 0) + logF0;
      d[base + F0_SUMSQ] = (d[base + F0_SUMSQ] ?? 0) + logF0 * logF0;
    }
  }

  /** Makes sure blocks up to `block` exist (silent blocks stay all-zero). */
  ensure(block: number): void {
    if (block < this.count) return;
    while ((block + 1) * STRIDE > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.count = block + 1;
  }

  speechFrames(block: number): number {
    return this.data[block * STRIDE + N] ?? 0;
  }

  /**
   * Adds block `block`'s speech frames to a diagonal Gaussian's sufficient statistics over c1..c12
   * (`sum` and `sumsq` of length CEPSTRA): what a model-based criterion such as BIC works on.
   */
  addCepstra(block: number, into: { n: number; sum: Float64Array; sumsq: Float64Array }): void {
    if (block < 0 || block >= this.count) return;
    const base = block * STRIDE;
    into.n += this.data[base + N] ?? 0;
    for (let c = 0; c < CEPSTRA; c++) {
      into.sum[c] = (into.sum[c] ?? 0) + (this.data[base + SUM + c] ?? 0);
      into.sumsq[c] = (into.sumsq[c] ?? 0) + (this.data[base + SUMSQ + c] ?? 0);
    }
  }

  /** Adds blocks [from, to) into `into` (length STRIDE). */
  sum(from: number, to: number, into: Float64Array): Float64Array {
    into.fill(0);
    for (let b = Math.max(0, from); b < Math.min(to, this.count); b++) {
      const base = b * STRIDE;
      for (let i = 0; i < STRIDE; i++) into[i] = (into[i] ?? 0) + (this.data[base + i] ?? 0);
    }
    return into;
  }
}

export interface Window {
  startBlock: number;
  /** One past the last block. */
  endBlock: number;
  speechFrames: number;
  /** Speaker embedding, in units of the recording's typical within-window spread. */
  vector: Float64Array;
}

export interface WindowOptions {
  windowBlocks: number;
  hopBlocks: number;
  /** Windows with less speech than this are too noisy to place; their blocks take neighbours' labels. */
  minSpeechFrames: number;
  /** Weight of the pitch dimension relative to one cepstral dimension. */
  pitchWeight: number;
}

/** 1.5 s windows every 0.5 s; at least 0.5 s of speech in a window. */
export const DEFAULT_WINDOW_OPTIONS: WindowOptions = {
  windowBlocks: 8,
  hopBlocks: 2,
  minSpeechFrames: 50,
  pitchWeight: 2,
};

/**
 * Embedding = mean c1..c12 and mean log f0 of the window's speech frames, each divided by the
 * recording's average within-window standard deviation of that dimension. Scaling by within-window
 * spread (phonetic variation, present in every recording) rather than by the spread across windows
 * keeps distances comparable between one-speaker and many-speaker recordings, so one distance
 * threshold can decide the speaker count.
 */
export interface EmbeddingScale {
  /** Divisor per dimension (c1..c12, log f0). */
  spread: Float64Array;
  /** Stands in for the pitch of windows with too few voiced frames. */
  pitchMean: number;
}

export interface Embeddings {
  windows: Window[];
  scale: EmbeddingScale;
}

/**
 * With `scale` given (from an earlier call), windows of another size are embedded in the same space, so
 * short windows can be compared with the centroids of clusters found on long ones.
 */
export function windowEmbeddings(
  stats: BlockStats,
  options = DEFAULT_WINDOW_OPTIONS,
  scale?: EmbeddingScale,
): Embeddings {
  const totals = new Float64Array(STRIDE);
  const raw: { startBlock: number; endBlock: number; n: number; mean: Float64Array; sd: Float64Array }[] = [];
  for (
    let start = 0;
    start < Math.max(1, stats.count - options.windowBlocks + options.hopBlocks);
    start += options.hopBlocks
  ) {
    const end = Math.min(stats.count, start + options.windowBlocks);
    stats.sum(start, end, totals);
    const n = totals[N] ?? 0;
    if (n < options.minSpeechFrames) continue;
    const mean = new Float64Array(CEPSTRA + 1);
    const sd = new Float64Array(CEPSTRA + 1);
    for (let c = 0; c < CEPSTRA; c++) {
      const m = (totals[SUM + c] ?? 0) / n;
      mean[c] = m;
      sd[c] = Math.sqrt(Math.max(0, (totals[SUMSQ + c] ?? 0) / n - m * m));
    }
    const voiced = totals[VOICED] ?? 0;
    if (voiced >= 5) {
      const m = (totals[F0_SUM] ?? 0) / voiced;
      mean[CEPSTRA] = m;
      sd[CEPSTRA] = Math.sqrt(Math.max(0, (totals[F0_SUMSQ] ?? 0) / voiced - m * m));
    } else {
      mean[CEPSTRA] = Number.NaN; // filled with the recording's mean below
    }
    raw.push({ startBlock: start, endBlock: end, n, mean, sd });
  }
  if (raw.length === 0)
    return { windows: [], scale: scale ?? { spread: new Float64Array(CEPSTRA + 1).fill(1), pitchMean: 0 } };
  const chosen = scale ?? measureScale(raw);
  const { spread, pitchMean } = chosen;
  const windows = raw.map((w) => {
    const vector = new Float64Array(CEPSTRA + 1);
    for (let c = 0; c < CEPSTRA; c++) vector[c] = (w.mean[c] ?? 0) / (spread[c] ?? 1);
    const pitch = Number.isNaN(w.mean[CEPSTRA]) ? pitchMean : (w.mean[CEPSTRA] ?? 0);
    vector[CEPSTRA] = (options.pitchWeight * pitch) / (spread[CEPSTRA] ?? 1);
    return { startBlock: w.startBlock, endBlock: w.endBlock, speechFrames: w.n, vector };
  });
  return { windows, scale: chosen };
}

function measureScale(raw: { mean: Float64Array; sd: Float64Array }[]): EmbeddingScale {
  const spread = new Float64Array(CEPSTRA + 1);
  let pitchMean = 0;
  let pitchCount = 0;
  for (const w of raw) {
    for (let d = 0; d <= CEPSTRA; d++) spread[d] = (spread[d] ?? 0) + (w.sd[d] ?? 0);
    if (!Number.isNaN(w.mean[CEPSTRA])) {
      pitchMean += w.mean[CEPSTRA] ?? 0;
      pitchCount++;
    }
  }
  pitchMean = pitchCount > 0 ? pitchMean / pitchCount : 0;
  for (let d = 0; d <= CEPSTRA; d++) spread[d] = Math.max(1e-6, (spread[d] ?? 0) / raw.length);
  // Pitch spread within a window can be tiny for a monotone voice; floor it at 5 % (about a semitone).
  spread[CEPSTRA] = Math.max(0.05, spread[CEPSTRA] ?? 0);
  return { spread, pitchMean };
}

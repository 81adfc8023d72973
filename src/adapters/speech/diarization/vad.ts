/**
 * Energy-based voice activity on 10 ms frames. The threshold adapts to the recording: it sits between
 * the noise floor (a low percentile of frame energies) and the speech level (a high percentile), both
 * taken from a sliding histogram, so the same code works on digital silence and on a noisy room.
 * Decisions lag the input by `lookaheadFrames` so that the first seconds of a file already have a
 * floor estimate; memory is a fixed histogram plus the energies of the sliding span.
 */

const BIN_DB = 0.5;
const MIN_DB = -100;
const BINS = 200;
/** Span of the histogram behind the frame being decided (30 s) and ahead of it (10 s). */
const BEHIND_FRAMES = 3000;
export const LOOKAHEAD_FRAMES = 1000;
const FLOOR_PERCENTILE = 0.1;
const SPEECH_PERCENTILE = 0.95;
/** Share of the floor-to-speech range above the floor where speech starts. */
const RANGE_SHARE = 0.3;
/** At least this far above the floor: with no speech at all, the range is noise only. */
const MIN_MARGIN_DB = 6;
/** Below this nothing is speech (digital silence, dither). */
const ABSOLUTE_MIN_DB = -55;

export class AdaptiveEnergyThreshold {
  private readonly histogram = new Uint32Array(BINS);
  private readonly ring = new Float32Array(BEHIND_FRAMES + LOOKAHEAD_FRAMES + 1);
  private total = 0;
  private pushed = 0;

  /** Adds the newest frame's energy; frames older than the span leave the histogram. */
  push(energyDb: number): void {
    const size = this.ring.length;
    if (this.pushed >= size) {
      const old = bin(this.ring[this.pushed % size] ?? MIN_DB);
      this.histogram[old] = (this.histogram[old] ?? 1) - 1;
      this.total--;
    }
    this.ring[this.pushed % size] = energyDb;
    const slot = bin(energyDb);
    this.histogram[slot] = (this.histogram[slot] ?? 0) + 1;
    this.total++;
    this.pushed++;
  }

  /** Threshold in dBFS for the frame now being decided. */
  threshold(): number {
    const floor = this.percentile(FLOOR_PERCENTILE);
    const speech = this.percentile(SPEECH_PERCENTILE);
    return Math.max(ABSOLUTE_MIN_DB, floor + Math.max(MIN_MARGIN_DB, RANGE_SHARE * (speech - floor)));
  }

  private percentile(share: number): number {
    const target = share * this.total;
    let seen = 0;
    for (let i = 0; i < BINS; i++) {
      seen += this.histogram[i] ?? 0;
      if (seen >= target) return MIN_DB + (i + 0.5) * BIN_DB;
    }
    return MIN_DB + BINS * BIN_DB;
  }
}

function bin(energyDb: number): number {
  return Math.max(0, Math.min(BINS - 1, Math.floor((energyDb - MIN_DB) / BIN_DB)));
}

export interface Region {
  /** First frame. */
  start: number;
  /** One past the last frame. */
  end: number;
}

export interface RegionOptions {
  /** Silences shorter than this inside speech are bridged (pauses between words, stop closures). */
  bridgeFrames: number;
  /** Speech bursts shorter than this are dropped (clicks, breaths). */
  minSpeechFrames: number;
  /** Added to both ends of each region: weak onsets and tails fall below an energy threshold. */
  hangoverFrames: number;
}

export const DEFAULT_REGION_OPTIONS: RegionOptions = {
  bridgeFrames: 20,
  minSpeechFrames: 10,
  hangoverFrames: 5,
};

/** Speech regions from per-frame decisions (1 = speech). */
export function speechRegions(flags: Uint8Array, count: number, options = DEFAULT_REGION_OPTIONS): Region[] {
  const raw: Region[] = [];
  let start = -1;
  for (let i = 0; i <= count; i++) {
    const speech = i < count && flags[i] === 1;
    if (speech && start < 0) start = i;
    if (!speech && start >= 0) {
      raw.push({ start, end: i });
      start = -1;
    }
  }
  const bridged: Region[] = [];
  for (const region of raw) {
    const last = bridged.at(-1);
    if (last && region.start - last.end < options.bridgeFrames) last.end = region.end;
    else bridged.push({ ...region });
  }
  return bridged
    .filter((region) => region.end - region.start >= options.minSpeechFrames)
    .map((region) => ({
      start: Math.max(0, region.start - options.hangoverFrames),
      end: Math.min(count, region.end + options.hangoverFrames),
    }));
}

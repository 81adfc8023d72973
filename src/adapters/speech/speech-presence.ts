/**
 * Is anybody speaking? A check computed on the audio itself, so that music, tones, noise and silence
 * are not handed to a recogniser that would turn them into confident-looking English words.
 *
 * Speech is a string of syllables: its loudness rises and falls 2 to 8 times a second, in most
 * frequency bands at once, with dips of 10 dB and more between syllables. A steady tone or chord has
 * no such modulation; noise fluctuates at every rate, not mainly at the syllabic one; silence has no
 * level at all. Music can be rhythmic, but its sustained notes keep some bands from dipping.
 * The recording is cut into 1.28 s windows; each is judged speech-like or not from:
 * - `syllabicShare`: the share of the level's fluctuation (per band, in dB) that lies at 2 to 8 Hz;
 * - `syllabicDepthDb`: how large that 2 to 8 Hz fluctuation is (RMS, dB);
 * - `bands`: how many of the 8 bands (150 Hz to 4 kHz) carry such modulation;
 * - the window's level, so that the quiet floor of a recording is never speech.
 * Thresholds: see `SPEECH_WINDOW` and docs/transcripts.md ("Confidence and speech presence").
 */

import { fft } from './fft.ts';

const SAMPLE_RATE = 16_000;
const HOP = 160; // 10 ms: the envelope is sampled at 100 Hz
const FRAME = 400; // 25 ms
const FFT_SIZE = 512;
const WINDOW_FRAMES = 128; // 1.28 s: 0.78 Hz resolution of the modulation spectrum
const WINDOW_HOP = 64;
const BAND_EDGES_HZ = [150, 250, 400, 630, 1000, 1500, 2000, 2800, 4000];
const BAND_COUNT = BAND_EDGES_HZ.length - 1;
const ENVELOPE_RATE = SAMPLE_RATE / HOP;
/** Levels are measured down to this (dB re full scale): below it is digital silence. */
const FLOOR_DB = -120;
/**
 * Within a window, a band's level never reads more than this under the window's loudest frame:
 * digital silence between words is not a 100 dB dip, and the rhythm measured is the same whatever
 * the recording's gain (speech far from the microphone keeps its syllables; the level test apart).
 * At the usual speech level (loudest frames near -15 dBFS) this is the -75 dBFS floor the
 * thresholds were chosen with.
 */
const WINDOW_RANGE_DB = 60;

/** What makes a window speech-like; chosen on the tuning set of bench/speech-presence.ts. */
export const SPEECH_WINDOW = {
  /** Loudest 10 ms frame of the window, dB re full scale. */
  minLevelDb: -50,
  /** Of the level's fluctuation within a band, the share at 2 to 8 Hz. */
  minSyllabicShare: 0.35,
  /** RMS of that 2 to 8 Hz fluctuation, dB. */
  minSyllabicDepthDb: 3,
  /** Bands (of 8) that pass both. */
  minBands: 4,
  /** Mean change of the spectrum's shape over 30 ms (formants move; a tremolo does not), dB. */
  minShapeChangeDb: 3.5,
} as const;

/**
 * A recording has speech when, in some stretch of about 10 s (or in the whole recording when it is
 * shorter), at least half the windows are speech-like: speech anywhere counts, however much music
 * surrounds it; music's speech-like windows are scattered. With fewer (but some) speech-like
 * windows the check cannot tell sparse speech (short phrases between pauses) from rhythmic music:
 * `sparse`, and the recogniser's confidence decides (recognition-notice.ts). Chosen on the tuning
 * set (see the bench).
 */
export const SPEECH_STRETCH = { windows: 16, minShare: 0.5 } as const;
/** Below this many windows (about 3.2 s) the check abstains: too little to tell. */
const MIN_WINDOWS = 4;

export interface WindowFeatures {
  levelDb: number;
  /** Spread of the 10 ms frame levels (90th minus 10th percentile), dB: the dips between syllables. */
  rangeDb: number;
  /** Mean change of the spectrum's shape over 30 ms, level changes removed, dB. */
  shapeChangeDb: number;
  /** Per band: share of modulation at 2–8 Hz, and its RMS depth in dB. */
  syllabicShare: number[];
  syllabicDepthDb: number[];
}

export interface SpeechPresence {
  /** Windows analysed (1.28 s, every 0.64 s). */
  windows: number;
  /** Of those, the speech-like ones. */
  speechWindows: number;
  /**
   * Windows that would be speech-like but are quieter than `SPEECH_WINDOW.minLevelDb`: speech
   * recorded far from the microphone or at low gain has the syllabic rhythm at any level.
   */
  quietSpeechWindows: number;
  /** The highest share of speech-like windows in any stretch of SPEECH_STRETCH.windows. */
  peakShare: number;
  /**
   * `present`: speech; `absent`: not one speech-like window, quiet or not; `sparse`: some, too few
   * to tell speech between pauses from music, or speech-like only below the level of speech
   * (the recogniser's confidence then decides); `unknown`: too short to tell.
   */
  verdict: 'present' | 'sparse' | 'absent' | 'unknown';
}

/**
 * Measures a stream of 16 kHz mono s16le PCM as it passes. Cheap (one 512-point FFT per 10 ms), and
 * keeps only the last window's envelopes, so a recording of any length costs the same memory.
 */
export class SpeechPresenceMeter {
  private readonly samples = new Float64Array(FRAME);
  private filled = 0;
  private carry: number | undefined; // odd byte left over between chunks
  private readonly envelopes: Float64Array[] = Array.from(
    { length: BAND_COUNT },
    () => new Float64Array(WINDOW_FRAMES),
  );
  private readonly levels = new Float64Array(WINDOW_FRAMES);
  private frames = 0;
  private readonly re = new Float64Array(FFT_SIZE);
  private readonly im = new Float64Array(FFT_SIZE);
  private readonly hann = Float64Array.from(
    { length: FRAME },
    (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME - 1)),
  );
  private readonly bandOfBin = bandOfBins();
  private windows = 0;
  private speechWindows = 0;
  private quietSpeechWindows = 0;
  /** The last SPEECH_STRETCH.windows verdicts, as a ring, and how many of them are speech-like. */
  private readonly recent = new Uint8Array(SPEECH_STRETCH.windows);
  private recentSpeech = 0;
  private peak = 0;
  /** Every window's features, when asked for (the bench prints them). */
  readonly features: WindowFeatures[] | undefined;

  constructor(options: { keepFeatures?: boolean } = {}) {
    this.features = options.keepFeatures ? [] : undefined;
  }

  /** Feeds the next bytes of PCM. */
  write(chunk: Buffer): void {
    let offset = 0;
    if (this.carry !== undefined && chunk.length > 0) {
      this.sample(Buffer.from([this.carry, chunk[0] ?? 0]).readInt16LE(0));
      this.carry = undefined;
      offset = 1;
    }
    for (; offset + 1 < chunk.length; offset += 2) this.sample(chunk.readInt16LE(offset));
    if (offset < chunk.length) this.carry = chunk[offset];
  }

  /** What was measured so far. */
  result(): SpeechPresence {
    const { windows, speechWindows, quietSpeechWindows } = this;
    // A recording shorter than one stretch is judged whole.
    const peakShare =
      windows >= SPEECH_STRETCH.windows ? this.peak : windows > 0 ? speechWindows / windows : 0;
    return presence({ windows, speechWindows, quietSpeechWindows, peakShare });
  }

  /** A pipeline stage that measures the PCM passing through it, unchanged. */
  stage(): (pcm: AsyncIterable<Buffer>) => AsyncGenerator<Buffer> {
    const meter = this;
    return async function* (pcm: AsyncIterable<Buffer>) {
      for await (const chunk of pcm) {
        meter.write(chunk);
        yield chunk;
      }
    };
  }

  private sample(value: number): void {
    // A ring of the last 25 ms, analysed every 10 ms once full.
    this.samples[this.filled % FRAME] = value / 32768;
    this.filled++;
    if (this.filled < FRAME) return;
    if ((this.filled - FRAME) % HOP === 0) this.frame();
  }

  private frame(): void {
    const { re, im } = this;
    re.fill(0);
    im.fill(0);
    const oldest = this.filled % FRAME;
    for (let i = 0; i < FRAME; i++) re[i] = (this.samples[(oldest + i) % FRAME] ?? 0) * (this.hann[i] ?? 0);
    fft(re, im);
    const bands = new Float64Array(BAND_COUNT);
    let total = 0;
    for (let bin = 1; bin < FFT_SIZE / 2; bin++) {
      const r = re[bin] ?? 0;
      const i = im[bin] ?? 0;
      const power = r * r + i * i;
      total += power;
      const band = this.bandOfBin[bin] ?? -1;
      if (band >= 0) bands[band] = (bands[band] ?? 0) + power;
    }
    const at = this.frames % WINDOW_FRAMES;
    // Power of the windowed frame relative to a full-scale sine's (about 0 dB for one).
    const scale = (FRAME * 0.375) / 2;
    this.levels[at] = toDb(total / (scale * FRAME));
    for (let band = 0; band < BAND_COUNT; band++) {
      (this.envelopes[band] as Float64Array)[at] = toDb((bands[band] ?? 0) / (scale * FRAME));
    }
    this.frames++;
    if (this.frames >= WINDOW_FRAMES && (this.frames - WINDOW_FRAMES) % WINDOW_HOP === 0) this.window();
  }

  private window(): void {
    const start = this.frames % WINDOW_FRAMES; // the oldest frame of the ring
    const levelDb = Math.max(...this.levels);
    const floor = Math.max(FLOOR_DB, levelDb - WINDOW_RANGE_DB);
    const ordered = (ring: Float64Array) =>
      Float64Array.from({ length: WINDOW_FRAMES }, (_, i) =>
        Math.max(floor, ring[(start + i) % WINDOW_FRAMES] ?? floor),
      );
    const sorted = Float64Array.from(this.levels, (level) => Math.max(floor, level)).sort();
    const rangeDb =
      (sorted[Math.floor(0.9 * (WINDOW_FRAMES - 1))] ?? 0) -
      (sorted[Math.floor(0.1 * (WINDOW_FRAMES - 1))] ?? 0);
    const shapeChangeDb = shapeChange(this.envelopes.map(ordered), floor);
    const syllabicShare: number[] = [];
    const syllabicDepthDb: number[] = [];
    for (const envelope of this.envelopes) {
      const { share, depthDb } = modulation(ordered(envelope));
      syllabicShare.push(share);
      syllabicDepthDb.push(depthDb);
    }
    const features = { levelDb, rangeDb, shapeChangeDb, syllabicShare, syllabicDepthDb };
    this.features?.push(features);
    const rhythm = hasSpeechRhythm(features);
    const speechLike = rhythm && features.levelDb >= SPEECH_WINDOW.minLevelDb ? 1 : 0;
    if (rhythm && !speechLike) this.quietSpeechWindows++;
    const slot = this.windows % SPEECH_STRETCH.windows;
    this.recentSpeech += speechLike - (this.recent[slot] ?? 0);
    this.recent[slot] = speechLike;
    this.windows++;
    this.speechWindows += speechLike;
    if (this.windows >= SPEECH_STRETCH.windows) {
      this.peak = Math.max(this.peak, this.recentSpeech / SPEECH_STRETCH.windows);
    }
  }
}

/** The counts with their verdict; quiet speech-like windows count as sparse speech. */
function presence(counts: Omit<SpeechPresence, 'verdict'>): SpeechPresence {
  const { windows, speechWindows, quietSpeechWindows, peakShare } = counts;
  const verdict =
    windows < MIN_WINDOWS
      ? 'unknown'
      : peakShare >= SPEECH_STRETCH.minShare
        ? 'present'
        : speechWindows + quietSpeechWindows > 0
          ? 'sparse'
          : 'absent';
  return { ...counts, verdict };
}

/** The chunks of one recording: speech in any of them is speech in the recording. */
export function combinePresence(parts: readonly SpeechPresence[]): SpeechPresence {
  const windows = parts.reduce((sum, part) => sum + part.windows, 0);
  const speechWindows = parts.reduce((sum, part) => sum + part.speechWindows, 0);
  const quietSpeechWindows = parts.reduce((sum, part) => sum + part.quietSpeechWindows, 0);
  const peakShare = parts.reduce((peak, part) => Math.max(peak, part.peakShare), 0);
  return presence({ windows, speechWindows, quietSpeechWindows, peakShare });
}

export function isSpeechLike(features: WindowFeatures): boolean {
  return features.levelDb >= SPEECH_WINDOW.minLevelDb && hasSpeechRhythm(features);
}

/** Syllabic modulation in enough bands and a moving spectrum, whatever the level. */
function hasSpeechRhythm(features: WindowFeatures): boolean {
  if (features.shapeChangeDb < SPEECH_WINDOW.minShapeChangeDb) return false;
  let bands = 0;
  for (let band = 0; band < BAND_COUNT; band++) {
    if (
      (features.syllabicShare[band] ?? 0) >= SPEECH_WINDOW.minSyllabicShare &&
      (features.syllabicDepthDb[band] ?? 0) >= SPEECH_WINDOW.minSyllabicDepthDb
    )
      bands++;
  }
  return bands >= SPEECH_WINDOW.minBands;
}

/**
 * The modulation spectrum of one band's level (dB, sampled at 100 Hz): of its fluctuation above
 * 0.5 Hz, the share at 2 to 8 Hz, and that part's RMS in dB.
 */
function modulation(envelope: Float64Array): { share: number; depthDb: number } {
  const n = envelope.length;
  let mean = 0;
  for (const value of envelope) mean += value;
  mean /= n;
  let syllabic = 0;
  let total = 0;
  const { cos, sin } = dftTable(n);
  // A plain DFT of 128 points at the 64 bins that matter, one window per 0.64 s; the angles repeat
  // every n steps, so they come from a table (the trigonometry was most of the check's CPU).
  for (let k = 1; k < n / 2; k++) {
    const hz = (k * ENVELOPE_RATE) / n;
    if (hz < 0.5) continue;
    let re = 0;
    let im = 0;
    for (let t = 0, step = 0; t < n; t++, step = (step + k) % n) {
      const value = (envelope[t] ?? 0) - mean;
      re += value * (cos[step] ?? 0);
      im -= value * (sin[step] ?? 0);
    }
    const power = re * re + im * im;
    total += power;
    if (hz >= 2 && hz <= 8) syllabic += power;
  }
  // Parseval: the power of the bins is n²/2 times the mean square of the component they stand for.
  const depthDb = Math.sqrt((2 * syllabic) / (n * n));
  return { share: total > 1e-9 ? syllabic / total : 0, depthDb };
}

const dftTables = new Map<number, { cos: Float64Array; sin: Float64Array }>();

/** cos and sin of 2πj/n for j < n. */
function dftTable(n: number): { cos: Float64Array; sin: Float64Array } {
  let table = dftTables.get(n);
  if (!table) {
    table = {
      cos: Float64Array.from({ length: n }, (_, j) => Math.cos((2 * Math.PI * j) / n)),
      sin: Float64Array.from({ length: n }, (_, j) => Math.sin((2 * Math.PI * j) / n)),
    };
    dftTables.set(n, table);
  }
  return table;
}

/** Lag, in frames, over which the spectrum's change is measured. */
const SHAPE_LAG = 3;
/** Bands this far below the frame's loudest band are the floor, not part of its shape. */
const SHAPE_RANGE_DB = 30;

/**
 * How much the spectrum's shape moves: per frame, the RMS over its loud bands of each band's change
 * over 30 ms minus their mean change (so that a sound that only gets louder or softer scores 0),
 * averaged over the window. Formants move; a tremolo or a held chord does not.
 */
function shapeChange(envelopes: Float64Array[], floor: number): number {
  let sum = 0;
  let frames = 0;
  for (let t = SHAPE_LAG; t < WINDOW_FRAMES; t++) {
    let loudest = floor;
    for (const band of envelopes) loudest = Math.max(loudest, band[t] ?? floor, band[t - SHAPE_LAG] ?? floor);
    const changes: number[] = [];
    for (const band of envelopes) {
      const now = band[t] ?? floor;
      const before = band[t - SHAPE_LAG] ?? floor;
      if (Math.max(now, before) >= loudest - SHAPE_RANGE_DB) changes.push(now - before);
    }
    if (changes.length < 2 || loudest <= floor + 1) continue;
    const mean = changes.reduce((a, b) => a + b, 0) / changes.length;
    sum += Math.sqrt(changes.reduce((a, b) => a + (b - mean) ** 2, 0) / changes.length);
    frames++;
  }
  return frames > 0 ? sum / frames : 0;
}

function toDb(power: number): number {
  return Math.max(FLOOR_DB, 10 * Math.log10(power + 1e-12));
}

function bandOfBins(): Int8Array {
  const bins = new Int8Array(FFT_SIZE / 2).fill(-1);
  for (let bin = 0; bin < FFT_SIZE / 2; bin++) {
    const hz = (bin * SAMPLE_RATE) / FFT_SIZE;
    const band = BAND_EDGES_HZ.findIndex((edge, i) => hz >= edge && hz < (BAND_EDGES_HZ[i + 1] ?? 0));
    bins[bin] = band;
  }
  return bins;
}

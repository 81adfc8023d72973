/**
 * Per-frame acoustic features for diarization: log energy, MFCCs (own FFT + mel filterbank + DCT, no
 * dependency) and pitch by normalised autocorrelation. Frames are 25 ms for the spectrum (the usual
 * speech analysis length) and 40 ms for pitch, so that two periods of a 60 Hz voice fit in a frame.
 */
import { fft } from '../fft.ts';

export const SAMPLE_RATE = 16_000;
/** 10 ms hop: 100 frames per second. */
export const HOP_SAMPLES = 160;
export const FRAME_MS = (HOP_SAMPLES * 1000) / SAMPLE_RATE;
/** Samples a caller must supply per frame (the pitch frame; the spectral frame is its centre). */
export const ANALYSIS_SAMPLES = 640;
const SPECTRUM_SAMPLES = 400;
const FFT_SIZE = 512;
const MEL_FILTERS = 26;
/** Cepstra kept, c0 (overall level) included; speaker features drop it, the VAD uses energy instead. */
export const MFCC_COUNT = 13;
const MEL_LOW_HZ = 60;
/** Below the 8 kHz Nyquist and below what 64 kbit/s MP3 keeps, so MP3 and WAV features agree. */
const MEL_HIGH_HZ = 7000;
const PITCH_MIN_HZ = 60;
const PITCH_MAX_HZ = 400;
/** A power of two at least the frame plus the longest lag, so no lag wraps around. */
const PITCH_FFT_SIZE = 1024;
/** Peak of the normalised autocorrelation above which a frame counts as voiced. */
const VOICING_THRESHOLD = 0.6;

export interface FrameFeatures {
  /** Frame energy in dB relative to full scale (a full-scale sine is about -3 dB). */
  energyDb: number;
  /** MFCC c0..c12; the array is reused by the next call: copy what you keep. */
  mfcc: Float64Array;
  /** Fundamental frequency in Hz, or 0 when unvoiced. */
  f0: number;
}

export class FrameAnalyser {
  private readonly window = hamming(SPECTRUM_SAMPLES);
  private readonly re = new Float64Array(FFT_SIZE);
  private readonly im = new Float64Array(FFT_SIZE);
  private readonly power = new Float64Array(FFT_SIZE / 2 + 1);
  private readonly melEnergies = new Float64Array(MEL_FILTERS);
  private readonly filters = melFilterbank(MEL_FILTERS, FFT_SIZE, MEL_LOW_HZ, MEL_HIGH_HZ);
  private readonly dct = dctMatrix(MFCC_COUNT, MEL_FILTERS);
  private readonly lagRe = new Float64Array(PITCH_FFT_SIZE);
  private readonly lagIm = new Float64Array(PITCH_FFT_SIZE);
  private readonly energyBefore = new Float64Array(ANALYSIS_SAMPLES + 1);
  private readonly result: FrameFeatures = { energyDb: -100, mfcc: new Float64Array(MFCC_COUNT), f0: 0 };

  /** `frame` holds ANALYSIS_SAMPLES samples scaled to -1..1. */
  analyse(frame: Float32Array): FrameFeatures {
    const offset = (ANALYSIS_SAMPLES - SPECTRUM_SAMPLES) / 2;
    let energy = 0;
    for (let i = 0; i < SPECTRUM_SAMPLES; i++) {
      const sample = frame[offset + i] ?? 0;
      energy += sample * sample;
    }
    this.result.energyDb = 10 * Math.log10(energy / SPECTRUM_SAMPLES + 1e-10);
    this.spectrum(frame, offset);
    this.cepstrum();
    this.result.f0 = this.pitch(frame);
    return this.result;
  }

  private spectrum(frame: Float32Array, offset: number): void {
    const { re, im, window, power } = this;
    re.fill(0);
    im.fill(0);
    // Pre-emphasis flattens the spectral tilt so high formants weigh in the cepstrum.
    let previous = frame[offset - 1] ?? 0;
    for (let i = 0; i < SPECTRUM_SAMPLES; i++) {
      const sample = frame[offset + i] ?? 0;
      re[i] = (sample - 0.97 * previous) * (window[i] ?? 0);
      previous = sample;
    }
    fft(re, im);
    for (let k = 0; k < power.length; k++) {
      const r = re[k] ?? 0;
      const i = im[k] ?? 0;
      power[k] = r * r + i * i;
    }
  }

  private cepstrum(): void {
    const { filters, melEnergies, power, dct } = this;
    for (let m = 0; m < MEL_FILTERS; m++) {
      const filter = filters[m];
      let sum = 0;
      if (filter)
        for (let k = 0; k < filter.weights.length; k++)
          sum += (filter.weights[k] ?? 0) * (power[filter.start + k] ?? 0);
      melEnergies[m] = Math.log(sum + 1e-10);
    }
    for (let c = 0; c < MFCC_COUNT; c++) {
      const row = dct[c];
      let sum = 0;
      if (row) for (let m = 0; m < MEL_FILTERS; m++) sum += (row[m] ?? 0) * (melEnergies[m] ?? 0);
      this.result.mfcc[c] = sum;
    }
  }

  private pitch(frame: Float32Array): number {
    const { lagRe: re, lagIm: im, energyBefore } = this;
    let mean = 0;
    for (let i = 0; i < ANALYSIS_SAMPLES; i++) mean += frame[i] ?? 0;
    mean /= ANALYSIS_SAMPLES;
    // energyBefore[k]: energy of the first k samples, so each lag's two energies are two lookups.
    re.fill(0);
    im.fill(0);
    let energy = 0;
    for (let i = 0; i < ANALYSIS_SAMPLES; i++) {
      const value = (frame[i] ?? 0) - mean;
      re[i] = value;
      energyBefore[i] = energy;
      energy += value * value;
    }
    energyBefore[ANALYSIS_SAMPLES] = energy;
    // Every lag's cross product at once: the inverse transform of the power spectrum of the
    // zero-padded frame (Wiener-Khinchin), five times cheaper than a product per lag.
    fft(re, im);
    for (let k = 0; k < PITCH_FFT_SIZE; k++) {
      const r = re[k] ?? 0;
      const i = im[k] ?? 0;
      re[k] = r * r + i * i;
      im[k] = 0;
    }
    fft(re, im); // the power spectrum is real and even: its forward transform is the inverse's × size
    const minLag = Math.floor(SAMPLE_RATE / PITCH_MAX_HZ);
    const maxLag = Math.ceil(SAMPLE_RATE / PITCH_MIN_HZ);
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      const cross = (re[lag] ?? 0) / PITCH_FFT_SIZE;
      const head = energyBefore[ANALYSIS_SAMPLES - lag] ?? 0; // samples 0 .. end - lag
      const tail = energy - (energyBefore[lag] ?? 0); // samples lag .. end
      const r = cross / Math.sqrt(head * tail + 1e-12);
      if (r > best) {
        best = r;
        bestLag = lag;
      }
    }
    return best >= VOICING_THRESHOLD && bestLag > 0 ? SAMPLE_RATE / bestLag : 0;
  }
}

function hamming(n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (n - 1));
  return out;
}

const hzToMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
const melToHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);

interface Filter {
  start: number;
  weights: Float64Array;
}

/** Triangular filters equally spaced on the mel scale, stored sparsely (first bin + weights). */
function melFilterbank(count: number, fftSize: number, lowHz: number, highHz: number): Filter[] {
  const low = hzToMel(lowHz);
  const high = hzToMel(highHz);
  const edges: number[] = [];
  for (let i = 0; i < count + 2; i++)
    edges.push((melToHz(low + ((high - low) * i) / (count + 1)) * fftSize) / SAMPLE_RATE);
  const filters: Filter[] = [];
  for (let m = 1; m <= count; m++) {
    const left = edges[m - 1] ?? 0;
    const centre = edges[m] ?? 0;
    const right = edges[m + 1] ?? 0;
    const start = Math.ceil(left);
    const end = Math.floor(right);
    const weights = new Float64Array(Math.max(0, end - start + 1));
    for (let k = start; k <= end; k++) {
      weights[k - start] = k <= centre ? (k - left) / (centre - left) : (right - k) / (right - centre);
    }
    filters.push({ start, weights });
  }
  return filters;
}

/** Orthonormal DCT-II rows. */
function dctMatrix(rows: number, columns: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let c = 0; c < rows; c++) {
    const row = new Float64Array(columns);
    const scale = Math.sqrt((c === 0 ? 1 : 2) / columns);
    for (let m = 0; m < columns; m++) row[m] = scale * Math.cos((Math.PI * c * (m + 0.5)) / columns);
    out.push(row);
  }
  return out;
}

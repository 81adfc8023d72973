import { describe, expect, it } from 'vitest';
import {
  ANALYSIS_SAMPLES,
  FrameAnalyser,
  SAMPLE_RATE,
} from '../../src/adapters/speech/diarization/features.ts';
import { fft } from '../../src/adapters/speech/fft.ts';

/** A reproducible pseudo-random sequence (no Math.random: a failure must be repeatable). */
function noise(length: number, seed = 1): Float64Array {
  let state = seed;
  return Float64Array.from({ length }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 30 - 1;
  });
}

function naiveDft(signal: Float64Array): { re: Float64Array; im: Float64Array } {
  const n = signal.length;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let k = 0; k < n; k++)
    for (let t = 0; t < n; t++) {
      re[k] = (re[k] ?? 0) + (signal[t] ?? 0) * Math.cos((2 * Math.PI * k * t) / n);
      im[k] = (im[k] ?? 0) - (signal[t] ?? 0) * Math.sin((2 * Math.PI * k * t) / n);
    }
  return { re, im };
}

/** Voiced-like frame: a fundamental with two harmonics and a little noise. */
function voicedFrame(f0: number, hissLevel = 0.01, seed = 7): Float32Array {
  const hiss = noise(ANALYSIS_SAMPLES, seed);
  return Float32Array.from({ length: ANALYSIS_SAMPLES }, (_, i) => {
    const t = i / SAMPLE_RATE;
    const tone =
      0.4 * Math.sin(2 * Math.PI * f0 * t) +
      0.2 * Math.sin(2 * Math.PI * 2 * f0 * t + 0.3) +
      0.1 * Math.sin(2 * Math.PI * 3 * f0 * t + 1.1);
    return tone + hissLevel * (hiss[i] ?? 0);
  });
}

describe('the FFT the audio analysers share', () => {
  it('matches a plain DFT at every size the analysers use', () => {
    for (const size of [8, 128, 512, 1024]) {
      const signal = noise(size, size);
      const re = Float64Array.from(signal);
      const im = new Float64Array(size);
      fft(re, im);
      const expected = naiveDft(signal);
      for (let k = 0; k < size; k++) {
        expect(re[k]).toBeCloseTo(expected.re[k] ?? Number.NaN, 6);
        expect(im[k]).toBeCloseTo(expected.im[k] ?? Number.NaN, 6);
      }
    }
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => fft(new Float64Array(12), new Float64Array(12))).toThrow(/power of two/);
  });
});

describe("the diarizer's pitch", () => {
  it('finds the period of a voiced frame across the range of voices, or twice it (no octave correction)', () => {
    const analyser = new FrameAnalyser();
    for (const f0 of [70, 80, 100, 120, 150, 200, 250, 320, 380]) {
      const found = analyser.analyse(voicedFrame(f0)).f0;
      // Within one lag step of the period or of twice the period: a plain normalised
      // autocorrelation scores both alike (the features use pitch statistics, which tolerate it).
      const error = Math.min(Math.abs(found - f0) / f0, Math.abs(2 * found - f0) / f0);
      expect(error).toBeLessThan(0.02);
    }
  });

  it('calls noise and silence unvoiced', () => {
    const analyser = new FrameAnalyser();
    expect(analyser.analyse(Float32Array.from(noise(ANALYSIS_SAMPLES, 3), (v) => v * 0.3)).f0).toBe(0);
    expect(analyser.analyse(new Float32Array(ANALYSIS_SAMPLES)).f0).toBe(0);
  });

  it('decides as a normalised product computed lag by lag would, voiced or not', () => {
    const analyser = new FrameAnalyser();
    let voiced = 0;
    let frames = 0;
    for (const f0 of [65, 90, 133, 157, 210, 290, 390]) {
      for (const hiss of [0.01, 0.3, 0.6, 0.9, 1.5]) {
        const frame = voicedFrame(f0, hiss, f0);
        expect(analyser.analyse(frame).f0).toBe(directPitch(frame));
        if (directPitch(frame) > 0) voiced++;
        frames++;
      }
    }
    // The frames span the voicing decision: both outcomes are compared.
    expect(voiced).toBeGreaterThan(0);
    expect(voiced).toBeLessThan(frames);
  });
});

/** The diarizer's pitch rule, computed directly: the best normalised correlation, voiced at 0.6. */
function directPitch(frame: Float32Array): number {
  let mean = 0;
  for (const value of frame) mean += value;
  mean /= frame.length;
  const centred = Float64Array.from(frame, (value) => value - mean);
  let best = 0;
  let bestLag = 0;
  for (let lag = Math.floor(SAMPLE_RATE / 400); lag <= Math.ceil(SAMPLE_RATE / 60); lag++) {
    let cross = 0;
    let head = 0;
    let tail = 0;
    for (let i = 0; i + lag < centred.length; i++) {
      cross += (centred[i] ?? 0) * (centred[i + lag] ?? 0);
      head += (centred[i] ?? 0) ** 2;
      tail += (centred[i + lag] ?? 0) ** 2;
    }
    const r = cross / Math.sqrt(head * tail + 1e-12);
    if (r > best) {
      best = r;
      bestLag = lag;
    }
  }
  return best >= 0.6 && bestLag > 0 ? SAMPLE_RATE / bestLag : 0;
}

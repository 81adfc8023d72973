import type { SpeakerVoice } from '../ports/speech-to-text.ts';

/**
 * Arithmetic on voices: the vectors the diarizer keeps for each speaker turn (`voices.json`), a
 * segment's voice from the turns it overlaps, and cosine similarity. Shared by similar segments (within
 * a recording) and voice profiles (across recordings).
 */

/** The segment's voice: the turns it overlaps, weighted by how much; undefined when it overlaps none. */
export function voiceOf(
  segment: { start_ms: number; end_ms: number },
  voices: readonly SpeakerVoice[],
): number[] | undefined {
  const total = weightedSum(
    voices,
    (voice) => Math.min(segment.end_ms, voice.end_ms) - Math.max(segment.start_ms, voice.start_ms),
  );
  return total ? unit(total.vector) : undefined;
}

/** The voices' vectors summed, each times its weight (those weighing nothing left out); undefined if none weigh. */
export function weightedSum(
  voices: readonly SpeakerVoice[],
  weightOf: (voice: SpeakerVoice) => number,
): { vector: number[]; weight: number } | undefined {
  let vector: number[] | undefined;
  let weight = 0;
  for (const voice of voices) {
    const w = weightOf(voice);
    if (w <= 0) continue;
    weight += w;
    vector = vector ? add(vector, voice.vector, w) : voice.vector.map((value) => value * w);
  }
  return vector ? { vector, weight } : undefined;
}

export function add(into: number[], vector: readonly number[], weight: number): number[] {
  return into.map((value, d) => value + (vector[d] ?? 0) * weight);
}

export function sum(vectors: readonly number[][]): number[] {
  const first = vectors[0];
  return first ? vectors.slice(1).reduce((total, vector) => add(total, vector, 1), [...first]) : [];
}

export function dot(a: readonly number[], b: readonly number[]): number {
  return a.reduce((total, value, d) => total + value * (b[d] ?? 0), 0);
}

/** Scaled to length 1; undefined for a zero (or empty) vector. */
export function unit(vector: readonly number[]): number[] | undefined {
  const norm = Math.sqrt(dot(vector, vector));
  return norm > 1e-9 ? vector.map((value) => value / norm) : undefined;
}

export interface HeardVoice {
  /** Unit length. */
  vector: number[];
  /** How much of the speaker's speech the voices covered. */
  speech_ms: number;
}

/**
 * Each speaker's voice: the turns their segments overlap, weighted by the overlap, over all their
 * segments. What a voice profile learns from and is compared with.
 */
export function speakerVoices(
  segments: readonly { speaker: string; start_ms: number; end_ms: number }[],
  voices: readonly SpeakerVoice[],
): Map<string, HeardVoice> {
  const totals = new Map<string, { vector: number[]; weight: number }>();
  for (const segment of segments) {
    const heard = weightedSum(
      voices,
      (voice) => Math.min(segment.end_ms, voice.end_ms) - Math.max(segment.start_ms, voice.start_ms),
    );
    if (!heard) continue;
    const total = totals.get(segment.speaker);
    totals.set(
      segment.speaker,
      total ? { vector: add(total.vector, heard.vector, 1), weight: total.weight + heard.weight } : heard,
    );
  }
  const found = new Map<string, HeardVoice>();
  for (const [speaker, total] of totals) {
    const vector = unit(total.vector);
    if (vector) found.set(speaker, { vector, speech_ms: total.weight });
  }
  return found;
}

/** Rounded to 4 decimals, as voices are stored. */
export function stored(vector: readonly number[]): number[] {
  return vector.map((value) => Math.round(value * 1e4) / 1e4);
}

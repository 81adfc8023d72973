/**
 * Evaluation measures for transcripts with speakers: word error rate, diarization error rate and the
 * share of words put on the right speaker. Used by the benchmark and the quality tests; plain
 * functions of reference and hypothesis, no audio.
 */
import { comparableWords } from '../../../domain/comparable-words.ts';
import type { RecognizedWord } from '../../../ports/speech-to-text.ts';

export interface TimedSpeaker {
  start_ms: number;
  end_ms: number;
  speaker: string;
}

/**
 * Lower-case words without punctuation; apostrophes inside words are kept (`don't`); one form for
 * what reads the same (`comparableWords`: "mister" = "Mr.", "twenty five" = "25", "12,000" = "12000").
 */
export function normaliseWords(text: string): string[] {
  const tokens = text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/[^a-z0-9']+/g, ' ')
    .split(' ')
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');
  return comparableWords(tokens);
}

/** (substitutions + deletions + insertions) / reference words, by Levenshtein on normalised words. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normaliseWords(reference);
  const hyp = normaliseWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return (previous[hyp.length] ?? 0) / ref.length;
}

export interface DiarizationError {
  /** (missed + false alarm + confusion) / scored reference speech. */
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** Reference speech time outside the collars, in ms. */
  scoredMs: number;
  /** Hypothesis speaker -> reference speaker, as chosen to minimise confusion. */
  mapping: Map<string, string>;
}

const STEP_MS = 10;

/**
 * Diarization error rate on a 10 ms grid. Time within `collarMs` of any reference turn boundary is not
 * scored (boundaries of human or synthetic references are uncertain by about a syllable). Speakers
 * are mapped one to one so as to maximise the time both agree (exhaustive for up to 7 speakers).
 * The share of missed, false-alarm and confused time is relative to the scored reference speech.
 */
export function diarizationErrorRate(
  reference: readonly TimedSpeaker[],
  hypothesis: readonly TimedSpeaker[],
  collarMs = 250,
): DiarizationError {
  const end = Math.max(0, ...reference.map((t) => t.end_ms), ...hypothesis.map((t) => t.end_ms));
  const steps = Math.ceil(end / STEP_MS);
  const scored = new Uint8Array(steps).fill(1);
  for (const turn of reference) {
    for (const boundary of [turn.start_ms, turn.end_ms]) {
      const from = Math.max(0, Math.floor((boundary - collarMs) / STEP_MS));
      const to = Math.min(steps, Math.ceil((boundary + collarMs) / STEP_MS));
      scored.fill(0, from, to);
    }
  }
  const refAt = speakersByStep(reference, steps);
  const hypAt = speakersByStep(hypothesis, steps);
  const refSpeakers = [...new Set(reference.map((t) => t.speaker))];
  const hypSpeakers = [...new Set(hypothesis.map((t) => t.speaker))];
  const together = new Map<string, number>();
  let scoredSteps = 0;
  let missed = 0;
  let falseAlarm = 0;
  let overlapSteps = 0;
  for (let s = 0; s < steps; s++) {
    if (!scored[s]) continue;
    const r = refAt[s] ?? [];
    const h = hypAt[s] ?? [];
    scoredSteps += r.length;
    missed += Math.max(0, r.length - h.length);
    falseAlarm += Math.max(0, h.length - r.length);
    overlapSteps += Math.min(r.length, h.length);
    for (const hs of h)
      for (const rs of r) together.set(`${hs}\u0000${rs}`, (together.get(`${hs}\u0000${rs}`) ?? 0) + 1);
  }
  const mapping = bestMapping(hypSpeakers, refSpeakers, (h, r) => together.get(`${h}\u0000${r}`) ?? 0);
  let agreed = 0;
  for (const [h, r] of mapping) agreed += together.get(`${h}\u0000${r}`) ?? 0;
  const confusion = overlapSteps - agreed;
  const total = Math.max(1, scoredSteps);
  return {
    der: (missed + falseAlarm + confusion) / total,
    missed: missed / total,
    falseAlarm: falseAlarm / total,
    confusion: confusion / total,
    scoredMs: scoredSteps * STEP_MS,
    mapping,
  };
}

export interface WordAttribution {
  /** Share (0..1) of words whose speaker maps to the reference speaker at the word's midpoint. */
  share: number;
  words: number;
  correct: number;
}

/**
 * Share of recognised words on the right speaker. Hypothesis speakers are mapped one to one to
 * reference speakers so as to maximise correct words; a word whose midpoint falls in a pause is
 * judged against the nearest reference turn; a word without a speaker counts as wrong.
 */
export function wordAttribution(
  words: readonly RecognizedWord[],
  reference: readonly TimedSpeaker[],
): WordAttribution {
  if (words.length === 0 || reference.length === 0) return { share: 0, words: words.length, correct: 0 };
  const pairs = new Map<string, number>();
  const judged = words.map((word) => {
    const middle = (word.start_ms + word.end_ms) / 2;
    let truth: TimedSpeaker | undefined;
    let gap = Number.POSITIVE_INFINITY;
    for (const turn of reference) {
      const distance = Math.max(0, turn.start_ms - middle, middle - turn.end_ms);
      if (distance < gap) {
        gap = distance;
        truth = turn;
      }
    }
    const key = `${word.speaker ?? ''}\u0000${truth?.speaker ?? ''}`;
    if (word.speaker !== undefined) pairs.set(key, (pairs.get(key) ?? 0) + 1);
    return { hyp: word.speaker, ref: truth?.speaker };
  });
  const hypSpeakers = [...new Set(words.flatMap((w) => (w.speaker === undefined ? [] : [w.speaker])))];
  const refSpeakers = [...new Set(reference.map((t) => t.speaker))];
  const mapping = bestMapping(hypSpeakers, refSpeakers, (h, r) => pairs.get(`${h}\u0000${r}`) ?? 0);
  const correct = judged.filter((j) => j.hyp !== undefined && mapping.get(j.hyp) === j.ref).length;
  return { share: correct / words.length, words: words.length, correct };
}

/**
 * One-to-one mapping maximising the summed score; extra hypothesis speakers stay unmapped (all their
 * time or words count as errors). Exhaustive search for up to 7 speakers on either side, greedy above.
 */
export function bestMapping(
  hyp: readonly string[],
  ref: readonly string[],
  score: (h: string, r: string) => number,
): Map<string, string> {
  if (hyp.length > 7 || ref.length > 7) {
    const pairs = hyp.flatMap((h) => ref.map((r) => ({ h, r, s: score(h, r) }))).sort((a, b) => b.s - a.s);
    const mapping = new Map<string, string>();
    const used = new Set<string>();
    for (const { h, r } of pairs) {
      if (mapping.has(h) || used.has(r)) continue;
      mapping.set(h, r);
      used.add(r);
    }
    return mapping;
  }
  let best = new Map<string, string>();
  let bestScore = -1;
  const current = new Map<string, string>();
  const used = new Set<string>();
  const search = (index: number, total: number) => {
    if (index === hyp.length) {
      if (total > bestScore) {
        bestScore = total;
        best = new Map(current);
      }
      return;
    }
    const h = hyp[index] as string;
    search(index + 1, total); // h left unmapped
    for (const r of ref) {
      if (used.has(r)) continue;
      used.add(r);
      current.set(h, r);
      search(index + 1, total + score(h, r));
      current.delete(h);
      used.delete(r);
    }
  };
  search(0, 0);
  return best;
}

function speakersByStep(turns: readonly TimedSpeaker[], steps: number): string[][] {
  const out: string[][] = Array.from({ length: steps }, () => []);
  for (const turn of turns) {
    const from = Math.max(0, Math.round(turn.start_ms / STEP_MS));
    const to = Math.min(steps, Math.round(turn.end_ms / STEP_MS));
    for (let s = from; s < to; s++) {
      const here = out[s] as string[];
      if (!here.includes(turn.speaker)) here.push(turn.speaker);
    }
  }
  return out;
}

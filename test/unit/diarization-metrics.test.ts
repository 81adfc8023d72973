import { describe, expect, it } from 'vitest';
import {
  diarizationErrorRate,
  wordAttribution,
  wordErrorRate,
} from '../../src/adapters/speech/diarization/metrics.ts';

describe('wordErrorRate', () => {
  it('is 0 for the same words whatever the case and punctuation', () => {
    expect(wordErrorRate('Hello, world!', 'hello world')).toBe(0);
  });
  it('counts a substitution, a deletion and an insertion', () => {
    expect(wordErrorRate('a b c d', 'a x c')).toBe(2 / 4); // b->x, d deleted
    expect(wordErrorRate('a b', 'a b c')).toBe(1 / 2);
  });
  it('handles empty texts', () => {
    expect(wordErrorRate('', '')).toBe(0);
    expect(wordErrorRate('', 'a')).toBe(1);
    expect(wordErrorRate('a b', '')).toBe(1);
  });
});

describe('diarizationErrorRate', () => {
  const reference = [
    { start_ms: 0, end_ms: 5000, speaker: 'awb' },
    { start_ms: 5000, end_ms: 10_000, speaker: 'slt' },
  ];
  it('is 0 when the hypothesis matches under another naming', () => {
    const hypothesis = [
      { start_ms: 0, end_ms: 5000, speaker: 'Speaker 2' },
      { start_ms: 5000, end_ms: 10_000, speaker: 'Speaker 1' },
    ];
    const result = diarizationErrorRate(reference, hypothesis);
    expect(result.der).toBe(0);
    expect(result.mapping.get('Speaker 2')).toBe('awb');
  });
  it('is 1 (all missed) for an empty hypothesis', () => {
    const result = diarizationErrorRate(reference, []);
    expect(result.der).toBeCloseTo(1);
    expect(result.missed).toBeCloseTo(1);
  });
  it('counts everything as confusion when one speaker is found for two, minus the mapped one', () => {
    const result = diarizationErrorRate(
      reference,
      [{ start_ms: 0, end_ms: 10_000, speaker: 'Speaker 1' }],
      0,
    );
    expect(result.confusion).toBeCloseTo(0.5);
    expect(result.der).toBeCloseTo(0.5);
  });
  it('does not score the collar around reference boundaries', () => {
    const late = [
      { start_ms: 200, end_ms: 5200, speaker: 'A' },
      { start_ms: 5200, end_ms: 10_000, speaker: 'B' },
    ];
    expect(diarizationErrorRate(reference, late, 250).der).toBe(0);
    expect(diarizationErrorRate(reference, late, 0).der).toBeGreaterThan(0);
  });
  it('counts speech where the reference has none as false alarm', () => {
    const hypothesis = [
      { start_ms: 0, end_ms: 5000, speaker: 'A' },
      { start_ms: 5000, end_ms: 12_000, speaker: 'B' },
    ];
    expect(diarizationErrorRate(reference, hypothesis, 0).falseAlarm).toBeCloseTo(0.2);
  });
});

describe('wordAttribution', () => {
  const reference = [
    { start_ms: 0, end_ms: 2000, speaker: 'awb' },
    { start_ms: 2500, end_ms: 4000, speaker: 'slt' },
  ];
  it('maps speakers one to one and judges each word at its midpoint', () => {
    const words = [
      { text: 'a', start_ms: 0, end_ms: 500, speaker: 'Speaker 1' },
      { text: 'b', start_ms: 1500, end_ms: 2100, speaker: 'Speaker 1' },
      { text: 'c', start_ms: 2600, end_ms: 3000, speaker: 'Speaker 2' },
      { text: 'd', start_ms: 3000, end_ms: 3500, speaker: 'Speaker 1' },
    ];
    expect(wordAttribution(words, reference)).toEqual({ share: 0.75, words: 4, correct: 3 });
  });
  it('judges a word in a pause by the nearest turn and a word without speaker as wrong', () => {
    const words = [
      { text: 'a', start_ms: 2050, end_ms: 2150, speaker: 'X' },
      { text: 'b', start_ms: 3000, end_ms: 3200 },
    ];
    expect(wordAttribution(words, reference)).toEqual({ share: 0.5, words: 2, correct: 1 });
  });
});

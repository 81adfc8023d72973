import { describe, expect, it } from 'vitest';
import { assignSpeakers } from '../../src/adapters/speech/diarization/assign.ts';
import { smoothTurns } from '../../src/adapters/speech/diarization/smooth.ts';
import type { SpeakerTurn } from '../../src/adapters/speech/diarization/types.ts';

const options = { minTurnMs: 1000, joinGapMs: 1000 };

describe('smoothTurns', () => {
  it('gives a short run between two runs of one speaker to that speaker', () => {
    const runs = [
      { start_ms: 0, end_ms: 3000, label: 0 },
      { start_ms: 3000, end_ms: 3400, label: 1 },
      { start_ms: 3400, end_ms: 6000, label: 0 },
    ];
    expect(smoothTurns(runs, options)).toEqual([{ start_ms: 0, end_ms: 6000, label: 0 }]);
  });
  it('joins same-speaker runs across a short pause but not a long one', () => {
    const runs = [
      { start_ms: 0, end_ms: 2000, label: 0 },
      { start_ms: 2500, end_ms: 4000, label: 0 },
      { start_ms: 6000, end_ms: 8000, label: 0 },
    ];
    expect(smoothTurns(runs, options)).toEqual([
      { start_ms: 0, end_ms: 4000, label: 0 },
      { start_ms: 6000, end_ms: 8000, label: 0 },
    ]);
  });
  it('keeps real turns longer than the minimum', () => {
    const runs = [
      { start_ms: 0, end_ms: 2000, label: 0 },
      { start_ms: 2000, end_ms: 3200, label: 1 },
      { start_ms: 3200, end_ms: 5000, label: 0 },
    ];
    expect(smoothTurns(runs, options)).toHaveLength(3);
  });
  it('relabels an isolated short run without stretching a turn over the silence', () => {
    const runs = [
      { start_ms: 0, end_ms: 3000, label: 0 },
      { start_ms: 6000, end_ms: 6300, label: 1 },
    ];
    expect(smoothTurns(runs, options)).toEqual([
      { start_ms: 0, end_ms: 3000, label: 0 },
      { start_ms: 6000, end_ms: 6300, label: 0 },
    ]);
  });
});

describe('assignSpeakers', () => {
  const turns: SpeakerTurn[] = [
    { start_ms: 0, end_ms: 1000, speaker: 'Speaker 1' },
    { start_ms: 1000, end_ms: 2000, speaker: 'Speaker 2' },
    { start_ms: 3000, end_ms: 4000, speaker: 'Speaker 1' },
  ];
  it('uses the turn with the largest overlap, else the nearest turn', () => {
    const words = [
      { text: 'a', start_ms: 800, end_ms: 1100 },
      { text: 'b', start_ms: 900, end_ms: 1400 },
      { text: 'c', start_ms: 2100, end_ms: 2300 },
      { text: 'd', start_ms: 2700, end_ms: 2900 },
      { text: 'e', start_ms: 5000, end_ms: 5100 },
    ];
    expect(assignSpeakers(words, turns).map((word) => word.speaker)).toEqual([
      'Speaker 1',
      'Speaker 2',
      'Speaker 2',
      'Speaker 1',
      'Speaker 1',
    ]);
  });
  it('leaves words without a speaker when there are no turns', () => {
    expect(assignSpeakers([{ text: 'a', start_ms: 0, end_ms: 10 }], [])[0]?.speaker).toBeUndefined();
  });
});

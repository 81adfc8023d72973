import { describe, expect, it } from 'vitest';
import {
  colourOf,
  labelOf,
  labelsOf,
  nextFreeLabel,
  sameSegments,
  segmentKeys,
  withHeldWords,
  wordsOf,
} from '../../web/src/speakers.ts';
import type { Segment, Transcription } from '../../web/src/types.ts';

function transcription(conversation_segments: Segment[]): Transcription {
  return { full_text: '', conversation_segments, duration_ms: 3000, language: 'en', engine: 'test' };
}

function segment(overrides: Partial<Segment>): Segment {
  return {
    start_ms: 0,
    end_ms: 1000,
    speaker: 'Speaker 1',
    text: 'hello there',
    has_overlap: false,
    ...overrides,
  };
}

describe('the web app’s speakers and words', () => {
  it('renames by the label the service gives, whatever name the segment shows', () => {
    expect(
      labelOf(segment({ speaker: 'Elinor', speaker_label: 'Speaker 2' }), { 'Speaker 2': 'Elinor' }),
    ).toBe('Speaker 2');
  });

  it('finds the label from the name on a service that gives no speaker_label, so a second rename still names a label', () => {
    const names = { 'Speaker 1': 'Elinor' };
    expect(labelOf(segment({ speaker: 'Elinor' }), names)).toBe('Speaker 1');
    expect(labelOf(segment({ speaker: 'Speaker 2' }), names)).toBe('Speaker 2');
  });

  it('lists each speaker once, by label number, so the list stays put when a correction changes who speaks first', () => {
    const segments = [
      segment({ speaker_label: 'Speaker 10' }),
      segment({ speaker_label: 'Guest' }),
      segment({ speaker_label: 'Speaker 2' }),
      segment({ speaker_label: 'Speaker 10' }),
    ];
    expect(labelsOf(segments, {})).toEqual(['Speaker 2', 'Speaker 10', 'Guest']);
  });

  it('keeps a speaker’s colour when a correction changes who speaks first', () => {
    expect(colourOf('Speaker 2', ['Speaker 2', 'Speaker 1'], 8)).toBe(1);
    expect(colourOf('Speaker 10', [], 8)).toBe(1);
    expect(colourOf('Guest', ['Speaker 1', 'Guest'], 8)).toBe(1);
  });

  it('gives a new speaker the lowest label neither in use nor named, as the service suggests', () => {
    expect(nextFreeLabel(['Speaker 1', 'Speaker 2'], {})).toBe('Speaker 3');
    expect(nextFreeLabel(['Speaker 1', 'Speaker 3'], {})).toBe('Speaker 2');
    expect(nextFreeLabel(['Speaker 2', 'Guest'], { 'Speaker 4': 'Ada' })).toBe('Speaker 1');
    expect(nextFreeLabel(['Speaker 1'], { 'Speaker 2': 'Ada' })).toBe('Speaker 3');
    expect(nextFreeLabel([], {})).toBe('Speaker 1');
  });

  it('marks the words under 0.5 confidence, matched to the text’s tokens by position', () => {
    const words = [
      { text: 'hello', start_ms: 0, end_ms: 400, confidence: 0.9 },
      { text: 'there', start_ms: 400, end_ms: 1000, confidence: 0.3 },
    ];
    expect(wordsOf(segment({ text: 'Hello there.', words }))).toEqual([
      { text: 'Hello', unsure: false },
      { text: 'there.', unsure: true },
    ]);
  });

  it('marks nothing where a word has no confidence, and the whole segment when only the segment has one', () => {
    const words = [
      { text: 'hello', start_ms: 0, end_ms: 400, confidence: null },
      { text: 'there', start_ms: 400, end_ms: 1000, confidence: null },
    ];
    expect(wordsOf(segment({ words, confidence: 0.2 })).map((word) => word.unsure)).toEqual([false, false]);
    expect(wordsOf(segment({ confidence: 0.2 })).map((word) => word.unsure)).toEqual([true, true]);
    expect(wordsOf(segment({ confidence: 0.8 })).map((word) => word.unsure)).toEqual([false, false]);
  });

  it('treats two readings as the same segments when only the names differ, not when a segment moved or changed', () => {
    const a = [segment({ speaker: 'Speaker 1', speaker_label: 'Speaker 1' }), segment({ start_ms: 1000 })];
    const renamed = [segment({ speaker: 'Elinor', speaker_label: 'Speaker 1' }), segment({ start_ms: 1000 })];
    expect(sameSegments(a, renamed)).toBe(true);
    expect(sameSegments(a, [segment({ speaker_label: 'Speaker 2' }), segment({ start_ms: 1000 })])).toBe(
      false,
    );
    expect(sameSegments(a, [segment({ text: 'hello' }), segment({ start_ms: 1000 })])).toBe(false);
    expect(sameSegments(a, a.slice(0, 1))).toBe(false);
  });

  it('keeps the unsure marks of a renamed speaker’s words, taking the names from the answer that has no words', () => {
    const words = [
      { text: 'hello', start_ms: 0, end_ms: 400, confidence: 0.9 },
      { text: 'there', start_ms: 400, end_ms: 1000, confidence: 0.3 },
    ];
    const held = transcription([
      segment({ speaker_label: 'Speaker 1', words }),
      segment({ start_ms: 1000, end_ms: 2000, speaker: 'Speaker 2', speaker_label: 'Speaker 2', words }),
    ]);
    const answer = transcription([
      segment({ speaker: 'Elinor', speaker_label: 'Speaker 1' }),
      segment({ start_ms: 1000, end_ms: 2000, speaker: 'Speaker 2', speaker_label: 'Speaker 2' }),
    ]);
    const shown = withHeldWords(answer, held);
    expect(shown.conversation_segments.map((each) => [each.speaker, each.words])).toEqual([
      ['Elinor', words],
      ['Speaker 2', words],
    ]);
    expect(wordsOf(shown.conversation_segments[0] as Segment).map((word) => word.unsure)).toEqual([
      false,
      true,
    ]);
  });

  it('gives no held words to a segment of the answer that is no longer the one held at its place', () => {
    const words = [
      { text: 'hello', start_ms: 0, end_ms: 400, confidence: 0.3 },
      { text: 'there', start_ms: 400, end_ms: 1000, confidence: 0.3 },
    ];
    const held = transcription([segment({ speaker_label: 'Speaker 1', words })]);
    const changed = [
      segment({ text: 'hello their', speaker_label: 'Speaker 1' }),
      segment({ speaker_label: 'Speaker 2' }),
      segment({ end_ms: 900, speaker_label: 'Speaker 1' }),
    ];
    for (const other of changed) {
      expect(withHeldWords(transcription([other]), held).conversation_segments[0]?.words).toBeUndefined();
    }
    // Past the held segments there is nothing to keep; words the answer has are its own.
    const own = [{ text: 'hello', start_ms: 0, end_ms: 500, confidence: 0.9 }];
    const answer = transcription([
      segment({ speaker_label: 'Speaker 1', words: own }),
      segment({ start_ms: 1000 }),
    ]);
    expect(withHeldWords(answer, held).conversation_segments.map((each) => each.words)).toEqual([
      own,
      undefined,
    ]);
  });

  it('keys each segment by its start, so an open editor stays on its segment when a merge before it moves it', () => {
    const before = [
      segment({}),
      segment({ start_ms: 1000 }),
      segment({ start_ms: 2000 }),
      segment({ start_ms: 3000 }),
    ];
    const merged = [segment({ end_ms: 2000 }), segment({ start_ms: 2000 }), segment({ start_ms: 3000 })];
    expect(segmentKeys(before)[2]).toBe(segmentKeys(merged)[1]);
    expect(segmentKeys(before)[3]).toBe(segmentKeys(merged)[2]);
  });

  it('keys two segments that start together apart', () => {
    const keys = segmentKeys([segment({}), segment({}), segment({ start_ms: 1000 })]);
    expect(new Set(keys).size).toBe(3);
  });
});

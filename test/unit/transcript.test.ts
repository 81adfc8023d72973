import { describe, expect, it } from 'vitest';
import {
  buildTranscription,
  type ConversationSegment,
  formatTimestamp,
} from '../../src/domain/transcript.ts';
import type { RecognizedWord } from '../../src/ports/speech-to-text.ts';

const opts = { duration_ms: 120_000, engine: 'pocketsphinx', language: 'en-US' };

/** Words of `durationMs` each, `gapMs` apart, starting at `startMs`. */
function spoken(
  text: string,
  startMs = 0,
  durationMs = 300,
  gapMs = 100,
  speaker?: string,
): RecognizedWord[] {
  return text.split(' ').map((word, i) => {
    const start_ms = startMs + i * (durationMs + gapMs);
    return { text: word, start_ms, end_ms: start_ms + durationMs, ...(speaker ? { speaker } : {}) };
  });
}

function expectWellFormed(segments: ConversationSegment[], durationMs: number): void {
  for (const [i, segment] of segments.entries()) {
    expect(segment.start_ms).toBeGreaterThanOrEqual(0);
    expect(segment.start_ms).toBeLessThan(segment.end_ms);
    expect(segment.end_ms).toBeLessThanOrEqual(durationMs);
    if (i > 0) expect(segment.start_ms).toBeGreaterThanOrEqual(segments[i - 1]?.start_ms ?? 0);
  }
}

describe('buildTranscription turns recognised words into readable segments', () => {
  it('returns empty text, no segments and a no_speech notice when nothing was recognised', () => {
    const result = buildTranscription([], opts);
    expect(result).toEqual({
      full_text: '',
      timestamped_full_text: '',
      conversation_segments: [],
      duration_ms: 120_000,
      language: 'en-US',
      engine: 'pocketsphinx',
      confidence: null,
      notice: { code: 'no_speech', detail: expect.stringContaining('No speech was heard') },
    });
  });

  it('keeps none of the words of a recording the engine found no speech in', () => {
    const result = buildTranscription(spoken('ah new juices her food'), { ...opts, notice: 'no_speech' });
    expect(result.conversation_segments).toEqual([]);
    expect(result.full_text).toBe('');
    expect(result.notice?.code).toBe('no_speech');
  });

  it('passes on a low_confidence notice with a message that names the other engines', () => {
    const words = spoken('the budget is done').map((word) => ({ ...word, confidence: 0.2 }));
    const result = buildTranscription(words, { ...opts, notice: 'low_confidence' });
    expect(result.conversation_segments).toHaveLength(1);
    expect(result.confidence).toBe(0.2);
    expect(result.notice?.code).toBe('low_confidence');
    expect(result.notice?.detail).toContain('(confidence 20 %)');
    expect(result.notice?.detail).toContain('NOTES_SPEECH_ENGINE=transcribe');
    expect(result.notice?.detail).toContain('NOTES_OPENAI_BASE_URL');
  });

  it('scores nothing when the engine reports no confidences', () => {
    const result = buildTranscription(spoken('the budget is done'), opts);
    expect(result.confidence).toBeNull();
    expect(result.conversation_segments[0]?.confidence).toBeNull();
    expect(result.notice).toBeNull();
  });

  it('starts a new segment at a pause of 800 ms or more, but not at a shorter one', () => {
    const words = [
      ...spoken('the budget is done'),
      ...spoken('hiring starts in may', 1_500 + 799),
      ...spoken('next meeting is monday', 10_000),
    ];
    // 'done' ends at 1_500: a 799 ms pause keeps the segment, the ~5 s pause before 'next' breaks it.
    const segments = buildTranscription(words, opts).conversation_segments;
    expect(segments.map((segment) => segment.text)).toEqual([
      'The budget is done hiring starts in may.',
      'Next meeting is monday.',
    ]);
    expect(buildTranscription(spoken('a b', 0, 300, 800), opts).conversation_segments).toHaveLength(2);
  });

  it('cuts a monologue without pauses into segments of about 30 seconds', () => {
    const words = spoken(Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '));
    const segments = buildTranscription(words, opts).conversation_segments;
    expect(segments.length).toBe(3);
    for (const segment of segments) expect(segment.end_ms - segment.start_ms).toBeLessThanOrEqual(30_500);
    expectWellFormed(segments, opts.duration_ms);
    const allWords = segments.flatMap((segment) => segment.text.replace(/\.$/, '').toLowerCase().split(' '));
    expect(allWords).toEqual(words.map((word) => word.text));
  });

  it('orders segments by time even when words arrive out of order', () => {
    const words = [...spoken('later words', 5_000), ...spoken('early words')];
    const result = buildTranscription(words, opts);
    expect(result.conversation_segments.map((segment) => segment.text)).toEqual([
      'Early words.',
      'Later words.',
    ]);
    expectWellFormed(result.conversation_segments, opts.duration_ms);
  });

  it('keeps every segment within the recording and non-empty, even with word times past its end', () => {
    const words = [
      { text: 'edge', start_ms: 9_990, end_ms: 10_000 },
      { text: 'past', start_ms: 11_000, end_ms: 12_000 },
      { text: 'instant', start_ms: 2_000, end_ms: 2_000 },
    ];
    const result = buildTranscription(words, { ...opts, duration_ms: 10_000 });
    expectWellFormed(result.conversation_segments, 10_000);
    expect(result.duration_ms).toBe(10_000);
  });

  it('falls back to the last word end when the duration is unknown', () => {
    const result = buildTranscription(spoken('hello there'), { ...opts, duration_ms: 0 });
    expect(result.duration_ms).toBe(700);
    expectWellFormed(result.conversation_segments, 700);
  });

  it('capitalises each segment, ends it with a period and capitalises the pronoun i', () => {
    const words = [...spoken('i think we are ready'), ...spoken("i'm sure", 5_000)];
    const result = buildTranscription(words, opts);
    expect(result.full_text).toBe("I think we are ready. I'm sure.");
  });

  it('writes one "[HH:MM:SS] Speaker: text" line per segment', () => {
    const words = [...spoken('good morning'), ...spoken('welcome back', 3_725_000)];
    const result = buildTranscription(words, { ...opts, duration_ms: 4_000_000 });
    expect(result.timestamped_full_text).toBe(
      '[00:00:00] Speaker 1: Good morning.\n[01:02:05] Speaker 1: Welcome back.',
    );
    expect(formatTimestamp(59_999)).toBe('00:00:59');
  });

  it('labels words without a speaker as Speaker 1 and never marks overlap for a single speaker', () => {
    const segments = buildTranscription(
      [...spoken('one two'), ...spoken('three four', 700)],
      opts,
    ).conversation_segments;
    expect(segments.every((segment) => segment.speaker === 'Speaker 1' && !segment.has_overlap)).toBe(true);
  });

  it('breaks at a speaker change and marks overlap only where two speakers talk at once', () => {
    const words = [
      ...spoken('so what did you think', 0, 300, 100, 'Speaker 1'),
      ...spoken('i liked it', 1_800, 300, 100, 'Speaker 2'),
      ...spoken('me too', 5_000, 300, 100, 'Speaker 1'),
    ];
    // Speaker 2 starts at 1_800, while Speaker 1's last word runs to 1_900.
    const segments = buildTranscription(words, opts).conversation_segments;
    expect(segments.map((segment) => [segment.speaker, segment.has_overlap])).toEqual([
      ['Speaker 1', true],
      ['Speaker 2', true],
      ['Speaker 1', false],
    ]);
  });
});

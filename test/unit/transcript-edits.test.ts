import { describe, expect, it } from 'vitest';
import { UnprocessableError } from '../../src/domain/errors.ts';
import { buildTranscription, type ConversationSegment } from '../../src/domain/transcript.ts';
import { applyEdits, type TranscriptEdit } from '../../src/domain/transcript-edits.ts';
import { retime } from '../../src/domain/transcript-words.ts';

const sameLabel = (speaker: string) => speaker;

/** "we ship on friday" at 1.0-1.3 s, 1.4-1.7 s, 1.8-1.9 s, 2.0-2.5 s. */
const WORDS = [
  { text: 'we', start_ms: 1000, end_ms: 1300 },
  { text: 'ship', start_ms: 1400, end_ms: 1700 },
  { text: 'on', start_ms: 1800, end_ms: 1900 },
  { text: 'friday', start_ms: 2000, end_ms: 2500 },
];

function recognised(): ConversationSegment[] {
  return buildTranscription(
    [...WORDS, { text: 'agreed', start_ms: 4000, end_ms: 4600, speaker: 'Speaker 2' }].map((word) => ({
      speaker: 'Speaker 1',
      ...word,
    })),
    { duration_ms: 5000, engine: 'test', language: 'en-US' },
  ).conversation_segments;
}

function edited(edits: TranscriptEdit[], segments = recognised()): ConversationSegment[] {
  return applyEdits(segments, edits, sameLabel);
}

describe('the recogniser output keeps its words', () => {
  it('stores one timed word per token of the segment text', () => {
    const [first] = recognised();
    expect(first?.text).toBe('We ship on friday.');
    expect(first?.words).toEqual(WORDS);
  });
});

describe('retiming corrected words', () => {
  it('keeps the times of unchanged words, ignoring case and punctuation, and places new words in the gap, confirmed by the person', () => {
    // The text read "We ship on friday.": "Friday." is the person's (its case), "We" is as it was.
    const timed = retime(WORDS, ['We', 'ship', 'it', 'on', 'Friday.'], { start_ms: 1000, end_ms: 2500 }, [
      'We',
      'ship',
      'on',
      'friday.',
    ]);
    expect(timed).toEqual([
      { text: 'We', start_ms: 1000, end_ms: 1300 },
      { text: 'ship', start_ms: 1400, end_ms: 1700 },
      { text: 'it', start_ms: 1700, end_ms: 1800, confidence: 1 },
      { text: 'on', start_ms: 1800, end_ms: 1900 },
      { text: 'Friday.', start_ms: 2000, end_ms: 2500, confidence: 1 },
    ]);
  });

  it('gives a replaced word the span of the word it replaced', () => {
    const timed = retime(WORDS, ['we', 'sail', 'on', 'friday'], { start_ms: 1000, end_ms: 2500 });
    expect(timed[1]).toEqual({ text: 'sail', start_ms: 1300, end_ms: 1800, confidence: 1 });
    expect(timed.filter((_, i) => i !== 1)).toEqual(WORDS.filter((_, i) => i !== 1));
  });

  it('spreads a wholly new text over the segment', () => {
    expect(retime(WORDS, ['all', 'new'], { start_ms: 1000, end_ms: 2000 })).toEqual([
      { text: 'all', start_ms: 1000, end_ms: 1500, confidence: 1 },
      { text: 'new', start_ms: 1500, end_ms: 2000, confidence: 1 },
    ]);
  });
});

describe('confidence across corrections', () => {
  const scoredWords = [
    { text: 'we', start_ms: 1000, end_ms: 1300, confidence: 0.9 },
    { text: 'ship', start_ms: 1400, end_ms: 1700, confidence: 0.2 },
    { text: 'on', start_ms: 1800, end_ms: 1900, confidence: 0.8 },
    { text: 'friday', start_ms: 2000, end_ms: 2500, confidence: 0.6 },
  ];
  const [segment] = buildTranscription(scoredWords, {
    duration_ms: 3000,
    engine: 'test',
    language: 'en-US',
  }).conversation_segments;

  it("scores a segment by its words' confidences weighted by their durations", () => {
    // (0.9*300 + 0.2*300 + 0.8*100 + 0.6*500) / 1200
    expect(segment?.confidence).toBe(0.592);
  });

  it("keeps the recogniser's confidence for unchanged words and gives words the person typed 1", () => {
    const [fixed] = applyEdits(
      [segment as ConversationSegment],
      [{ op: 'replace_text', segment: 0, text: 'We sail on friday.' }],
      sameLabel,
    );
    expect(fixed?.words?.map((word) => word.confidence)).toEqual([0.9, 1, 0.8, 0.6]);
    // (0.9*300 + 1*500 + 0.8*100 + 0.6*500) / 1400: "sail" spans the gap "ship" left.
    expect(fixed?.confidence).toBe(0.821);
  });

  it('confirms a word the person corrected only in case or punctuation, keeping its time', () => {
    // The text reads "We ship on friday."; the person writes "Ship" and "Friday!".
    const [fixed] = applyEdits(
      [segment as ConversationSegment],
      [{ op: 'replace_text', segment: 0, text: 'We Ship on Friday!' }],
      sameLabel,
    );
    expect(fixed?.words?.map((word) => [word.text, word.start_ms, word.confidence])).toEqual([
      ['We', 1000, 0.9],
      ['Ship', 1400, 1],
      ['on', 1800, 0.8],
      ['Friday!', 2000, 1],
    ]);
  });
});

describe('applying corrections', () => {
  it('replaces text within the same bounds, folding line breaks and runs of spaces', () => {
    const [first] = edited([{ op: 'replace_text', segment: 0, text: ' We  ship\non Monday. ' }]);
    expect(first).toMatchObject({ start_ms: 1000, end_ms: 2500, text: 'We ship on Monday.' });
    expect(first?.words?.slice(0, 3)).toEqual(
      WORDS.slice(0, 3).map((word, i) => ({ ...word, text: ['We', 'ship', 'on'][i] })),
    );
  });

  it('splits before a word at the time that word starts, and merging joins the halves again', () => {
    const split = edited([{ op: 'split', segment: 0, at_word: 2 }]);
    expect(split.slice(0, 2)).toMatchObject([
      { start_ms: 1000, end_ms: 1800, text: 'We ship' },
      { start_ms: 1800, end_ms: 2500, text: 'on friday.' },
    ]);
    expect(edited([{ op: 'merge', segment: 0 }], split)).toEqual(recognised());
  });

  it('splits at a time: the words that start before it go first', () => {
    const split = edited([{ op: 'split', segment: 0, at_ms: 1750 }]);
    expect(split.slice(0, 2)).toMatchObject([
      { start_ms: 1000, end_ms: 1750, text: 'We ship' },
      { start_ms: 1750, end_ms: 2500, text: 'on friday.' },
    ]);
  });

  it('edits transcripts stored without words with segment-level times', () => {
    const old = recognised().map(({ words: _words, ...segment }) => segment);
    const split = edited([{ op: 'split', segment: 0, at_word: 2 }], old);
    expect(split.slice(0, 2)).toEqual([
      { start_ms: 1000, end_ms: 1750, speaker: 'Speaker 1', text: 'We ship', has_overlap: false },
      { start_ms: 1750, end_ms: 2500, speaker: 'Speaker 1', text: 'on friday.', has_overlap: false },
    ]);
    const replaced = edited([{ op: 'replace_text', segment: 0, text: 'Hello there.' }], old);
    expect(replaced[0]).toEqual({ ...old[0], text: 'Hello there.' });
  });

  it('stores a speaker through the given mapping (a display name back to its label)', () => {
    const names: Record<string, string> = { Ada: 'Speaker 2' };
    const segments = applyEdits(
      recognised(),
      [{ op: 'set_speaker', segment: 0, speaker: 'Ada' }],
      (speaker) => names[speaker] ?? speaker,
    );
    expect(segments[0]?.speaker).toBe('Speaker 2');
  });

  it('gives every segment of one speaker to another when one person was heard as two', () => {
    const names: Record<string, string> = { Ada: 'Speaker 1' };
    const segments = applyEdits(
      recognised(),
      [{ op: 'merge_speakers', speaker: 'Speaker 2', into: 'Ada' }],
      (speaker) => names[speaker] ?? speaker,
    );
    expect(segments.map((segment) => segment.speaker)).toEqual(['Speaker 1', 'Speaker 1']);
    expect(segments.map((segment) => segment.text)).toEqual(recognised().map((segment) => segment.text));
  });

  it('gives several segments to one speaker in one edit, leaving the others and every text as they were', () => {
    const names: Record<string, string> = { Ada: 'Speaker 3' };
    const segments = applyEdits(
      recognised(),
      [{ op: 'set_speakers', segments: [1, 0], speaker: 'Ada' }],
      (speaker) => names[speaker] ?? speaker,
    );
    expect(segments.map((segment) => segment.speaker)).toEqual(['Speaker 3', 'Speaker 3']);
    expect(segments.map((segment) => segment.text)).toEqual(recognised().map((segment) => segment.text));
    expect(
      edited([{ op: 'set_speakers', segments: [1], speaker: 'Speaker 1' }]).map((s) => s.speaker),
    ).toEqual(['Speaker 1', 'Speaker 1']);
  });

  it('refuses what cannot apply, naming the edit', () => {
    const cases: [TranscriptEdit[], RegExp][] = [
      [[{ op: 'replace_text', segment: 2, text: 'x' }], /edits\[0\] \(replace_text\): there is no segment 2/],
      [[{ op: 'merge', segment: 1 }], /segment 1 is the last one/],
      [[{ op: 'split', segment: 0, at_word: 4 }], /without words/],
      [[{ op: 'split', segment: 0, at_ms: 2500 }], /outside segment 0/],
      [[{ op: 'split', segment: 1, at_word: 1 }], /without words/],
      [
        [{ op: 'merge_speakers', speaker: 'Speaker 7', into: 'Speaker 1' }],
        /no segment is spoken by "Speaker 7"/,
      ],
      [[{ op: 'merge_speakers', speaker: 'Speaker 1', into: 'Speaker 1' }], /are the same speaker/],
      [
        [{ op: 'set_speakers', segments: [0, 5], speaker: 'Speaker 2' }],
        /edits\[0\] \(set_speakers\): there is no segment 5/,
      ],
      [
        [
          { op: 'merge', segment: 0 },
          { op: 'merge', segment: 0 },
        ],
        /edits\[1\] \(merge\): segment 0 is the last one/,
      ],
    ];
    for (const [edits, message] of cases) {
      expect(() => edited(edits)).toThrow(UnprocessableError);
      expect(() => edited(edits)).toThrow(message);
    }
  });
});

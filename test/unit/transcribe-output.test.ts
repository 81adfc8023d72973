import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MalformedTranscribeOutputError,
  parseTranscribeOutput,
  speakerName,
} from '../../src/adapters/transcribe/output.ts';
import { buildTranscription } from '../../src/domain/transcript.ts';

/** Fixtures follow the AWS developer guide's "Example diarization output (batch)". */
function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/transcribe/${name}`, import.meta.url), 'utf8'));
}

interface LooseOutput {
  results: { items: Record<string, unknown>[]; speaker_labels?: unknown };
}

/** A copy of a fixture to alter for one case. */
function editable(name: string): LooseOutput {
  return structuredClone(fixture(name)) as LooseOutput;
}

function word(content: string, start: string, end: string, extra: Record<string, unknown> = {}) {
  return {
    start_time: start,
    end_time: end,
    alternatives: [{ confidence: '0.99', content }],
    type: 'pronunciation',
    ...extra,
  };
}

const mark = (content: string) => ({ alternatives: [{ confidence: '0.0', content }], type: 'punctuation' });

describe('parseTranscribeOutput reads a current-format output (speaker_label on items)', () => {
  const result = parseTranscribeOutput(fixture('two-speakers.json'));

  it('keeps one word per pronunciation item, with punctuation attached to the word before it', () => {
    expect(result.words.map((w) => w.text)).toEqual([
      'Hi',
      'Maria,',
      'are',
      'we',
      'still',
      'on',
      'for',
      'Friday?',
      'Yes.',
      "I'll",
      'bring',
      'the',
      'draft,',
      'and',
      'the',
      'budget',
      'numbers.',
      'Great,',
      'thanks.',
    ]);
  });

  it('converts second strings to milliseconds and spk_N labels to 1-based speaker names', () => {
    expect(result.words[0]).toMatchObject({ text: 'Hi', start_ms: 540, end_ms: 780, speaker: 'Speaker 1' });
    expect(result.words[8]).toMatchObject({
      text: 'Yes.',
      start_ms: 3640,
      end_ms: 3980,
      speaker: 'Speaker 2',
    });
    expect(result.words.at(-1)).toMatchObject({
      text: 'thanks.',
      start_ms: 7700,
      end_ms: 8150,
      speaker: 'Speaker 1',
    });
  });

  it('takes the duration from the last timestamp, as Transcribe reports no duration', () => {
    expect(result.duration_ms).toBe(8150);
  });

  it('needs no speaker_labels block when the items carry the labels', () => {
    const output = editable('two-speakers.json');
    delete output.results.speaker_labels;
    expect(parseTranscribeOutput(output)).toEqual(result);
  });
});

describe('parseTranscribeOutput reads an older output (speakers only in speaker_labels.segments)', () => {
  it('matches each word to its segment item by start and end time', () => {
    const result = parseTranscribeOutput(fixture('older-format.json'));
    const spoken = result.words.map((w) => `${w.speaker}: ${w.text}`);
    expect(spoken).toEqual([
      'Speaker 1: So',
      'Speaker 1: what',
      'Speaker 1: did',
      'Speaker 1: the',
      'Speaker 1: client',
      'Speaker 1: say?',
      'Speaker 2: They',
      'Speaker 2: signed',
      'Speaker 2: this',
      'Speaker 2: morning.',
      'Speaker 1: Excellent!',
    ]);
    expect(result.duration_ms).toBe(5130);
  });

  it('trusts the exact segment item over an enclosing segment when speakers talk over each other', () => {
    const output = {
      results: {
        items: [word('Wait', '1.00', '1.40')],
        speaker_labels: {
          segments: [
            { start_time: '0.50', end_time: '3.00', speaker_label: 'spk_0', items: [] },
            {
              start_time: '1.00',
              end_time: '1.40',
              speaker_label: 'spk_1',
              items: [{ start_time: '1.00', end_time: '1.40', speaker_label: 'spk_1' }],
            },
          ],
        },
      },
    };
    expect(parseTranscribeOutput(output).words[0]?.speaker).toBe('Speaker 2');
  });

  it('falls back to the enclosing segment when a word has no segment item', () => {
    const output = {
      results: {
        items: [word('Okay', '1.10', '1.40')],
        speaker_labels: {
          segments: [
            { start_time: '0.50', end_time: '2.00', speaker_label: 'spk_1', items: [] },
            { start_time: '2.00', end_time: '3.00', speaker_label: 'spk_0', items: [] },
          ],
        },
      },
    };
    expect(parseTranscribeOutput(output).words).toEqual([
      { text: 'Okay', start_ms: 1100, end_ms: 1400, speaker: 'Speaker 2', confidence: 0.99 },
    ]);
  });

  it('leaves the speaker out when diarisation was off', () => {
    const result = parseTranscribeOutput({ results: { items: [word('Hello', '0.2', '0.6'), mark('.')] } });
    expect(result.words).toEqual([{ text: 'Hello.', start_ms: 200, end_ms: 600, confidence: 0.99 }]);
  });
});

describe('parseTranscribeOutput edge cases', () => {
  it('returns no words and zero duration for a job with no speech', () => {
    expect(parseTranscribeOutput(fixture('no-speech.json'))).toEqual({ words: [], duration_ms: 0 });
  });

  it('drops punctuation that has no word before it', () => {
    const result = parseTranscribeOutput({ results: { items: [mark('.'), word('Right', '0.3', '0.7')] } });
    expect(result.words.map((w) => w.text)).toEqual(['Right']);
  });

  it('uses the alternative with the highest confidence', () => {
    const item = {
      ...word('', '0.1', '0.5'),
      alternatives: [
        { confidence: '0.41', content: 'fry' },
        { confidence: '0.87', content: 'Friday' },
      ],
    };
    expect(parseTranscribeOutput({ results: { items: [item] } }).words[0]?.text).toBe('Friday');
  });

  it('takes the duration from a segment that ends after the last word', () => {
    const output = {
      results: {
        items: [word('Bye', '1.0', '1.3', { speaker_label: 'spk_0' })],
        speaker_labels: {
          segments: [{ start_time: '1.0', end_time: '1.52', speaker_label: 'spk_0', items: [] }],
        },
      },
    };
    expect(parseTranscribeOutput(output).duration_ms).toBe(1520);
  });

  it('rounds times to whole milliseconds and accepts unquoted seconds (LocalStack writes numbers)', () => {
    const result = parseTranscribeOutput({
      results: {
        items: [word('a', '12.3456', '12.9994'), { ...word('b', '', ''), start_time: 13, end_time: 13.25 }],
      },
    });
    expect(result.words.map((w) => [w.start_ms, w.end_ms])).toEqual([
      [12346, 12999],
      [13000, 13250],
    ]);
  });

  it.each([
    ['the malformed fixture', fixture('malformed.json'), /results\.items\[0\]\.start_time/],
    ['null', null, /Not a Transcribe output document/],
    ['an object without results', { jobName: 'x', status: 'COMPLETED' }, /results/],
    ['times that are not numbers', { results: { items: [word('a', 'soon', '1.0')] } }, /start_time/],
    ['an end before the start', { results: { items: [word('a', '2.0', '1.0')] } }, /end_time is before/],
    ['an unknown item type', { results: { items: [{ ...mark('x'), type: 'entity' }] } }, /type/],
  ])('throws a clear error for %s', (_name, input, message) => {
    expect(() => parseTranscribeOutput(input)).toThrow(MalformedTranscribeOutputError);
    expect(() => parseTranscribeOutput(input)).toThrow(message);
  });
});

describe('speakerName', () => {
  it('numbers Transcribe speakers from 1 and keeps labels it does not know', () => {
    expect(speakerName('spk_0')).toBe('Speaker 1');
    expect(speakerName('spk_9')).toBe('Speaker 10');
    expect(speakerName('ch_0')).toBe('ch_0');
  });
});

describe('a parsed Transcribe output through buildTranscription', () => {
  const { words, duration_ms } = parseTranscribeOutput(fixture('two-speakers.json'));
  const transcription = buildTranscription(words, {
    duration_ms,
    engine: 'amazon-transcribe',
    language: 'en-US',
  });

  it('makes one segment per speaker turn, alternating speakers, with punctuation kept', () => {
    expect(transcription.conversation_segments.map((s) => [s.speaker, s.text])).toEqual([
      ['Speaker 1', 'Hi Maria, are we still on for Friday?'],
      ['Speaker 2', "Yes. I'll bring the draft, and the budget numbers."],
      ['Speaker 1', 'Great, thanks.'],
    ]);
    expect(transcription.conversation_segments.map((s) => [s.start_ms, s.end_ms])).toEqual([
      [540, 2710],
      [3640, 6180],
      [7250, 8150],
    ]);
  });

  it('adds no second period or stray punctuation to sentences Transcribe already ended', () => {
    expect(transcription.full_text).toBe(
      "Hi Maria, are we still on for Friday? Yes. I'll bring the draft, and the budget numbers. Great, thanks.",
    );
    expect(transcription.full_text).not.toMatch(/\.\.|\?\.|!\.|\s[.,?!]/);
    expect(transcription.timestamped_full_text.split('\n')[1]).toBe(
      "[00:00:03] Speaker 2: Yes. I'll bring the draft, and the budget numbers.",
    );
  });
});

describe("Transcribe's word confidences", () => {
  const { words, duration_ms } = parseTranscribeOutput(fixture('two-speakers.json'));

  it('gives each word the confidence of its chosen alternative, as a number', () => {
    expect(words.slice(0, 3).map((w) => [w.text, w.confidence])).toEqual([
      ['Hi', 0.998],
      ['Maria,', 0.957],
      ['are', 0.999],
    ]);
    expect(words.every((w) => typeof w.confidence === 'number')).toBe(true);
  });

  it('scores each segment by the duration-weighted mean of its words, punctuation left out', () => {
    const transcription = buildTranscription(words, {
      duration_ms,
      engine: 'amazon-transcribe',
      language: 'en-US',
    });
    // Hi 240 ms x 0.998, Maria 440 ms x 0.957, ... Friday 590 ms x 0.989.
    expect(transcription.conversation_segments.map((s) => s.confidence)).toEqual([0.987, 0.981, 0.988]);
    expect(transcription.notice).toBeNull();
  });

  it('marks the word Transcribe doubted, and leaves a word without a confidence unscored', () => {
    const doubted = editable('two-speakers.json');
    const items = doubted.results.items;
    items[1] = word('Mario', '0.78', '1.22', { alternatives: [{ confidence: '0.412', content: 'Mario' }] });
    items[2] = word('are', '1.31', '1.45', { alternatives: [{ content: 'are' }] });
    const parsed = parseTranscribeOutput(doubted).words;
    expect(parsed[1]).toMatchObject({ text: 'Mario', confidence: 0.412 });
    expect(parsed[2]?.confidence).toBeUndefined();
  });

  it('turns an output without words (music, silence) into no segments and a no_speech notice', () => {
    const empty = parseTranscribeOutput(fixture('no-speech.json'));
    const transcription = buildTranscription(empty.words, {
      duration_ms: empty.duration_ms,
      engine: 'amazon-transcribe',
      language: 'en-US',
    });
    expect(transcription.conversation_segments).toEqual([]);
    expect(transcription.notice?.code).toBe('no_speech');
  });
});

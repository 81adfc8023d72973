import { describe, expect, it } from 'vitest';
import { buildTranscription } from '../../src/domain/transcript.ts';
import { toMarkdown, toSrt, toVtt, withSpeakerNames } from '../../src/domain/transcript-exports.ts';
import { transcriptFormat } from '../../src/http/content-negotiation.ts';

const transcription = buildTranscription(
  [
    { text: 'hello', start_ms: 250, end_ms: 700, speaker: 'Speaker 1' },
    { text: 'there', start_ms: 720, end_ms: 1100, speaker: 'Speaker 1' },
    { text: 'hi', start_ms: 1500, end_ms: 1800, speaker: 'Speaker 2' },
    { text: 'a<b', start_ms: 3_723_004, end_ms: 3_724_999, speaker: 'Speaker 1' },
  ],
  { duration_ms: 3_725_000, engine: 'test', language: 'en-US' },
);

/** Parses `HH:MM:SS,mmm` or `HH:MM:SS.mmm` to ms, failing on anything else. */
function cueMs(time: string): number {
  const match = /^(\d{2}):([0-5]\d):([0-5]\d)[,.](\d{3})$/.exec(time);
  if (!match) throw new Error(`malformed cue time ${time}`);
  const [, h, m, s, ms] = match.map(Number) as [number, number, number, number, number];
  return ((h * 60 + m) * 60 + s) * 1000 + ms;
}

function cueTimes(text: string, separator: string): Array<[number, number]> {
  return [...text.matchAll(/^(\S+) --> (\S+)$/gm)].map((match) => {
    expect(match[1]).toContain(separator);
    return [cueMs(match[1] as string), cueMs(match[2] as string)];
  });
}

function expectMonotonic(times: Array<[number, number]>) {
  let previousStart = -1;
  for (const [start, end] of times) {
    expect(start).toBeLessThan(end);
    expect(start).toBeGreaterThanOrEqual(previousStart);
    previousStart = start;
  }
}

describe('transcript exports', () => {
  it('writes SubRip cues numbered from 1 with well-formed, monotonic times and the speaker', () => {
    const srt = toSrt(transcription);
    const times = cueTimes(srt, ',');
    expect(times).toHaveLength(transcription.conversation_segments.length);
    expectMonotonic(times);
    expect(times[0]).toEqual([250, 1100]);
    expect(times[2]).toEqual([3_723_004, 3_724_999]);
    expect(srt.split('\n\n').map((cue) => cue.split('\n')[0])).toEqual(['1', '2', '3']);
    expect(srt).toContain('Speaker 2: Hi.');
  });

  it('writes WebVTT with a header, voice spans for speakers and escaped markup', () => {
    const vtt = toVtt(transcription);
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    expectMonotonic(cueTimes(vtt, '.'));
    expect(vtt).toContain('<v Speaker 1>Hello there.');
    expect(vtt).toContain('<v Speaker 1>A&lt;b.');
    expect(vtt).not.toContain('a<b');
  });

  it('writes Markdown with the title and each speaker turn with its start time', () => {
    const md = toMarkdown(transcription, 'Standup');
    expect(md).toMatch(/^# Standup\n\n\*\*Speaker 1\*\* \[00:00:00\]: Hello there\.\n/);
    expect(md).toContain('**Speaker 1** [01:02:03]: A<b.');
  });

  it('shows the names users gave speakers in segments, timestamped text and exports', () => {
    const named = withSpeakerNames(transcription, { 'Speaker 1': 'Alice' });
    expect(named.conversation_segments.map((segment) => segment.speaker)).toEqual([
      'Alice',
      'Speaker 2',
      'Alice',
    ]);
    expect(named.timestamped_full_text.split('\n')[0]).toBe('[00:00:00] Alice: Hello there.');
    expect(toSrt(named)).toContain('Alice: Hello there.');
    expect(toVtt(named)).toContain('<v Alice>');
    expect(transcription.conversation_segments[0]?.speaker).toBe('Speaker 1');
  });
});

describe('speaker names stored before line breaks and "-->" were refused', () => {
  const injected = 'Mallory\n\n99\n00:00:09,000 --> 00:00:10,000\n<c.evil>Injected</c> & **bold**';
  const named = withSpeakerNames(transcription, { 'Speaker 2': injected });

  /** Lines that carry a cue timing: the only ones that may contain `-->`. */
  const timingLines = (text: string) => text.split('\n').filter((line) => line.includes('-->'));

  it('add no SubRip cue: one timing line per segment, the name on the text line', () => {
    const srt = toSrt(named);
    expect(timingLines(srt)).toHaveLength(transcription.conversation_segments.length);
    expect(cueTimes(srt, ',')).toHaveLength(transcription.conversation_segments.length);
    expect(srt.split('\n\n')).toHaveLength(transcription.conversation_segments.length);
    expect(srt).toContain(
      '2\n00:00:01,500 --> 00:00:01,800\nMallory 99 00:00:09,000 -> 00:00:10,000 <c.evil>',
    );
  });

  it('add no WebVTT cue and cannot open markup: the voice span is one escaped line', () => {
    const vtt = toVtt(named);
    expect(timingLines(vtt)).toHaveLength(transcription.conversation_segments.length);
    expect(vtt).toContain(
      '<v Mallory 99 00:00:09,000 -&gt; 00:00:10,000 &lt;c.evil&gt;Injected&lt;/c&gt; &amp; **bold**>Hi.',
    );
    expect(vtt).not.toContain('<c.evil>');
  });

  it('stay one literal Markdown paragraph, and so does a title with a line break', () => {
    const md = toMarkdown(named, 'Standup\n# Not a heading <b>');
    expect(md.startsWith('# Standup \\# Not a heading \\<b\\>\n\n')).toBe(true);
    expect(md).toContain(
      '**Mallory 99 00:00:09,000 --\\> 00:00:10,000 \\<c.evil\\>Injected\\</c\\> \\& \\*\\*bold\\*\\*** [00:00:01]: Hi.',
    );
    expect(md.split('\n\n')).toHaveLength(transcription.conversation_segments.length + 1);
  });

  it('keep the timestamped text to one line per segment', () => {
    expect(named.timestamped_full_text.split('\n')).toHaveLength(transcription.conversation_segments.length);
  });
});

describe('choosing the transcript format', () => {
  it('prefers the format parameter, then a known Accept type, then JSON', () => {
    expect(transcriptFormat('srt', 'text/vtt')).toBe('srt');
    expect(transcriptFormat(undefined, 'text/vtt, */*;q=0.1')).toBe('vtt');
    expect(transcriptFormat(undefined, 'text/markdown; charset=utf-8')).toBe('md');
    expect(transcriptFormat(undefined, 'application/x-subrip')).toBe('srt');
    expect(transcriptFormat(undefined, '*/*')).toBe('json');
    expect(transcriptFormat(undefined, undefined)).toBe('json');
  });
});

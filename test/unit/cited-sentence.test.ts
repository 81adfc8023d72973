import { describe, expect, it } from 'vitest';
import { citedSentence } from '../../src/domain/cited-sentence.ts';
import type { AskPassage } from '../../src/ports/answer-engine.ts';

const passage: AskPassage = {
  note_id: 'n',
  note_title: 'Planning',
  start_ms: 19_000,
  end_ms: 40_000,
  text: 'Good morning everyone. Thanks for coming. The budget is two hundred thousand dollars. We ship in May.',
  turns: [
    { speaker: 'Ana', text: 'Good morning everyone. Thanks for coming.', start_ms: 19_000 },
    {
      speaker: 'Bo',
      text: 'The budget is two hundred thousand dollars. We ship in May.',
      start_ms: 24_000,
      word_starts: [24_000, 24_300, 24_500, 24_800, 25_100, 25_600, 26_200, 26_900, 27_200, 27_500, 27_800],
    },
  ],
};

describe('the sentence a citation opens on', () => {
  it('is the sentence the answer quotes, timed by its first word', () => {
    expect(citedSentence(passage, 'From "Planning" (0:19): Bo: "We ship in May."')).toEqual({
      sentence: 'We ship in May.',
      start_ms: 26_900,
    });
  });

  it('is the sentence quoted first when the answer quotes several, even a shorter one or one cut short', () => {
    const later: AskPassage = {
      ...passage,
      turns: [
        {
          speaker: 'Bo',
          text: 'We ship in May. The budget is two hundred thousand dollars.',
          start_ms: 24_000,
          word_starts: [
            24_000, 24_300, 24_500, 24_800, 25_100, 25_600, 26_200, 26_900, 27_200, 27_500, 27_800,
          ],
        },
      ],
    };
    expect(
      citedSentence(
        later,
        'From "Planning" (00:00:24): Bo: "We ship in May." … "The budget is two hundred thousand dollars."',
      ),
    ).toEqual({ sentence: 'We ship in May.', start_ms: 24_000 });
    expect(
      citedSentence(passage, 'Bo: "The budget is two hundred thousand…" … "We ship in May."').sentence,
    ).toBe('The budget is two hundred thousand dollars.');
  });

  it('is the sentence a paraphrase shares most words with, for a model’s answer', () => {
    expect(citedSentence(passage, 'They have a budget of $200k (two hundred thousand dollars).')).toEqual({
      sentence: 'The budget is two hundred thousand dollars.',
      start_ms: 24_000,
    });
  });

  it('falls back to its turn’s start without word timings, and to the passage’s first sentence when nothing is shared', () => {
    expect(citedSentence(passage, 'Thanks for coming')).toEqual({
      sentence: 'Thanks for coming.',
      start_ms: 19_000,
    });
    expect(citedSentence(passage, 'Zebras')).toEqual({
      sentence: 'Good morning everyone.',
      start_ms: 19_000,
    });
  });
});

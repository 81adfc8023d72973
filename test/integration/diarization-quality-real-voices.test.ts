/**
 * Diarization quality on real human voices (test/fixtures/real-voices/: a LibriVox reader, the
 * pocketsphinx "cards" speaker and the ALSA channel-test voice, with exact turn boundaries). Floors sit
 * a little under what `npm run bench -- quality` measured (docs/transcripts.md): they catch a
 * regression to a wrong speaker count or to words on the wrong speaker, not small changes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateConversation } from '../../bench/transcript-quality.ts';
import { type ConversationFixture, fixtureNamed } from '../fixtures/conversations/generate.ts';
import { ensureRealVoices } from '../fixtures/real-voices/generate.ts';

/** Measured (docs/transcripts.md): DER 2.5 %, 98.0 % of words on the right speaker. */
const DER_FLOOR_TWO = 0.06;
const ATTRIBUTION_FLOOR_TWO = 0.95;
/** Measured: 7.1 % without a hint and with `speakers_expected`. */
const DER_FLOOR_THREE = 0.12;
/** Measured: 2.4 %. */
const DER_FLOOR_SHORT = 0.06;

let fixtures: ConversationFixture[];
const fixture = (name: string): ConversationFixture => fixtureNamed(fixtures, name);

beforeAll(async () => {
  fixtures = await ensureRealVoices();
});

describe('diarization quality (real voices)', () => {
  it('a reader and a short-turn speaker are two speakers, with at least 95 % of words on the right one', async () => {
    const { row } = await evaluateConversation(fixture('real-two-speakers'));
    expect(row.speakers_found).toBe(2);
    expect(row.der).toBeLessThan(DER_FLOOR_TWO);
    expect(row.word_attribution).toBeGreaterThanOrEqual(ATTRIBUTION_FLOOR_TWO);
  }, 120_000);

  it('three real voices are found as three', async () => {
    const { row } = await evaluateConversation(fixture('real-three-speakers'), { recognise: false });
    expect(row.speakers_found).toBe(3);
    expect(row.der).toBeLessThan(DER_FLOOR_THREE);
  });

  it('two voices speaking only short turns are two speakers', async () => {
    const { row } = await evaluateConversation(fixture('real-short-turns'), { recognise: false });
    expect(row.speakers_found).toBe(2);
    expect(row.der).toBeLessThan(DER_FLOOR_SHORT);
  });

  it('one real voice is one speaker, in long sentences and in short phrases alike', async () => {
    for (const name of ['real-single-reader', 'real-single-short']) {
      const { turns } = await evaluateConversation(fixture(name), { recognise: false });
      expect(new Set(turns.map((turn) => turn.speaker)), name).toEqual(new Set(['Speaker 1']));
    }
  });

  it('follows a speakers_expected hint on real voices', async () => {
    for (const [name, expected] of [
      ['real-two-speakers', 2],
      ['real-three-speakers', 3],
    ] as const) {
      const { row } = await evaluateConversation(fixture(name), {
        recognise: false,
        speakersExpected: expected,
      });
      expect(row.speakers_found, name).toBe(expected);
      expect(row.der, name).toBeLessThan(DER_FLOOR_THREE);
    }
  });
});

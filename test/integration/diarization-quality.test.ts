/**
 * Diarization quality on the generated flite conversations, with thresholds set from measurement
 * (bench/transcript-quality.ts): measured DER 0.0-0.8 % with a 250 ms collar, 3/3 and 1/1 speakers.
 * The thresholds leave room for small changes, not for a regression to a wrong speaker count.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateConversation } from '../../bench/transcript-quality.ts';
import {
  type ConversationFixture,
  ensureConversations,
  fixtureNamed,
} from '../fixtures/conversations/generate.ts';

let fixtures: ConversationFixture[];
const fixture = (name: string): ConversationFixture => fixtureNamed(fixtures, name);

beforeAll(async () => {
  fixtures = await ensureConversations();
});

describe('diarization quality (flite conversations)', () => {
  it('clean two speakers: DER under 10 % and more than 95 % of recognised words on the right speaker', async () => {
    const { row } = await evaluateConversation(fixture('two-speakers'));
    expect(row.speakers_found).toBe(2);
    expect(row.der).toBeLessThan(0.1);
    expect(row.word_attribution).toBeGreaterThan(0.95);
  }, 120_000);

  it('three speakers are found as three', async () => {
    const { row } = await evaluateConversation(fixture('three-speakers'), { recognise: false });
    expect(row.speakers_found).toBe(3);
    expect(row.der).toBeLessThan(0.1);
  });

  it('a single speaker yields exactly one speaker', async () => {
    const { row, turns } = await evaluateConversation(fixture('single-speaker'), { recognise: false });
    expect(row.speakers_found).toBe(1);
    expect(new Set(turns.map((turn) => turn.speaker))).toEqual(new Set(['Speaker 1']));
  });

  it('the MP3 and the noisy variants keep two speakers and a low DER', async () => {
    for (const name of ['two-speakers-mp3', 'two-speakers-noisy']) {
      const { row } = await evaluateConversation(fixture(name), { recognise: false });
      expect(row.speakers_found, name).toBe(2);
      expect(row.der, name).toBeLessThan(0.1);
    }
  });

  it('follows a speakers_expected hint', async () => {
    const { row } = await evaluateConversation(fixture('three-speakers'), {
      recognise: false,
      speakersExpected: 2,
    });
    expect(row.speakers_found).toBe(2);
  });
});

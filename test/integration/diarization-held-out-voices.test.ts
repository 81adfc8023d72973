/**
 * The diarizer (in its worker thread, as the service runs it) on the voice mixes of
 * test/fixtures/real-voices/mixes.ts: real people from klettres-data and codec2-examples besides the
 * LibriVox, cards, ALSA and flite voices, in MP3, Opus and telephone-band encodings. Floors sit a
 * little above what `npm run bench -- diarization-loso` measured (docs/transcripts.md, "Quality,
 * measured"); the REST path is covered by diarization-over-rest.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateConversation } from '../../bench/transcript-quality.ts';
import { type ConversationFixture, fixtureNamed } from '../fixtures/conversations/generate.ts';
import { ensureMixes, mixSpecs } from '../fixtures/real-voices/mixes.ts';

let fixtures: ConversationFixture[];
const fixture = (name: string) => fixtureNamed(fixtures, name);

beforeAll(async () => {
  fixtures = await ensureMixes(
    mixSpecs(
      'codec2-two-men',
      'klettres-two-men',
      'librivox-klettres-flite',
      'five-speakers',
      'codec2-klettres-woman-man',
      'cards-klettres-brisk',
    ),
  );
}, 300_000);

describe('diarization of voices from several Debian packages and codecs', () => {
  /** Measured DER (250 ms collar) with the shipped settings, and the floor a little above it. */
  const measured: [name: string, speakers: number, derFloor: number][] = [
    ['codec2-two-men', 2, 0.1], // 6.4 %
    ['codec2-two-men-opus-16k', 2, 0.1], // 6.6 %, Opus at 16 kbit/s
    ['klettres-two-men', 2, 0.3], // 23.5 %: two men reading letters
    ['klettres-two-men-phone-8k', 2, 0.15], // 10.3 %, 8 kHz mu-law
    ['librivox-klettres-flite', 3, 0.05], // 0.4 %
    ['librivox-klettres-flite-phone-8k', 3, 0.05], // 0.9 %
    ['five-speakers', 5, 0.06], // 2.2 %
  ];
  for (const [name, speakers, derFloor] of measured) {
    it(`${name}: ${speakers} speakers, DER under ${derFloor * 100} %`, async () => {
      const { row } = await evaluateConversation(fixture(name), { recognise: false });
      expect(row.speakers_found).toBe(speakers);
      expect(row.der).toBeLessThan(derFloor);
    });
  }

  it('separates two voices trading 0.8-2.3 s turns when told there are two', async () => {
    // One speaker without the hint (DER 50.7 %); with it 0.8 % (docs/transcripts.md, issue 37).
    const { row } = await evaluateConversation(fixture('cards-klettres-brisk'), {
      recognise: false,
      speakersExpected: 2,
    });
    expect(row.speakers_found).toBe(2);
    expect(row.der).toBeLessThan(0.05);
  });

  it('gives exactly the hinted number of speakers, more or fewer than it finds alone', async () => {
    const name = 'codec2-klettres-woman-man'; // three people; four without a hint
    for (const hint of [2, 3, 4]) {
      const { row } = await evaluateConversation(fixture(name), { recognise: false, speakersExpected: hint });
      expect(row.speakers_found, `hint ${hint}`).toBe(hint);
    }
  });
});

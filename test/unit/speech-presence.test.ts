import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpeechPresenceMeter } from '../../src/adapters/speech/speech-presence.ts';
import { TESTDATA_DIR } from '../fixtures/real-speech.ts';

const RATE = 16_000;

/** 16 kHz mono s16le PCM of `seconds` of `sample(t)` (t in seconds, value in -1..1). */
function pcm(seconds: number, sample: (t: number) => number): Buffer {
  const buffer = Buffer.alloc(seconds * RATE * 2);
  for (let i = 0; i < seconds * RATE; i++) {
    buffer.writeInt16LE(Math.round(Math.max(-1, Math.min(1, sample(i / RATE))) * 32767), i * 2);
  }
  return buffer;
}

function measure(...chunks: Buffer[]) {
  const meter = new SpeechPresenceMeter();
  for (const chunk of chunks) meter.write(chunk);
  return meter.result();
}

/** Real speech: pocketsphinx-testdata's "something.raw" and "goforward.raw" (16 kHz s16le), joined. */
const speech = Buffer.concat(
  ['something.raw', 'goforward.raw'].map((file) => readFileSync(`${TESTDATA_DIR}/${file}`)),
);

describe('the speech-presence check', () => {
  it('hears speech in a real recording of a person speaking', () => {
    expect(measure(speech).verdict).toBe('present');
  });

  it('hears none in tones, a chord, digital silence or steady noise', () => {
    const chord = (t: number) => 0.2 * (Math.sin(2 * Math.PI * 262 * t) + Math.sin(2 * Math.PI * 330 * t));
    let seed = 1;
    const noise = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return (seed / 2 ** 31 - 0.5) * 0.4;
    };
    expect(measure(pcm(6, (t) => 0.5 * Math.sin(2 * Math.PI * 440 * t))).verdict).toBe('absent');
    expect(measure(pcm(6, chord)).verdict).toBe('absent');
    expect(measure(pcm(6, () => 0)).verdict).toBe('absent');
    expect(measure(pcm(6, noise)).verdict).toBe('absent');
  });

  it('hears none in a tone whose loudness swings 4 times a second, as syllables do', () => {
    const tremolo = (t: number) =>
      0.4 * Math.sin(2 * Math.PI * 300 * t) * (0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t));
    expect(measure(pcm(8, tremolo)).verdict).toBe('absent');
  });

  it('leaves quiet speech (35 dB down, far from the microphone) to the recogniser instead of calling it silence', () => {
    const quiet = Buffer.alloc(speech.length);
    for (let i = 0; i + 1 < speech.length; i += 2) {
      quiet.writeInt16LE(Math.round(speech.readInt16LE(i) * 10 ** (-35 / 20)), i);
    }
    const presence = measure(quiet);
    expect(presence.quietSpeechWindows).toBeGreaterThan(0);
    expect(presence.verdict).toBe('sparse');
  });

  it('abstains on a clip too short to judge', () => {
    expect(measure(pcm(1, (t) => Math.sin(2 * Math.PI * 440 * t))).verdict).toBe('unknown');
  });

  it('measures the same whether the PCM comes whole or in pieces split mid-sample', () => {
    const pieces = [speech.subarray(0, 1001), speech.subarray(1001, 54_321), speech.subarray(54_321)];
    expect(measure(...pieces)).toEqual(measure(speech));
  });
});

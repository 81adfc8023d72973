import { describe, expect, it } from 'vitest';
import {
  LOW_CONFIDENCE_BELOW,
  LOW_CONFIDENCE_MIN_WORDS,
  recordingNotice,
  SPARSE_SPEECH_FROM,
} from '../../src/adapters/speech/recognition-notice.ts';
import { combinePresence, type SpeechPresence } from '../../src/adapters/speech/speech-presence.ts';
import type { RecognizedWord } from '../../src/ports/speech-to-text.ts';

const heard: SpeechPresence = {
  windows: 20,
  speechWindows: 15,
  quietSpeechWindows: 0,
  peakShare: 0.75,
  verdict: 'present',
};
const notHeard: SpeechPresence = {
  windows: 20,
  speechWindows: 0,
  quietSpeechWindows: 0,
  peakShare: 0,
  verdict: 'absent',
};
const tooShort: SpeechPresence = {
  windows: 1,
  speechWindows: 1,
  quietSpeechWindows: 0,
  peakShare: 1,
  verdict: 'unknown',
};
/** Phrases between pauses, or rhythmic music: a few speech-like windows. */
const sparse: SpeechPresence = {
  windows: 30,
  speechWindows: 5,
  quietSpeechWindows: 0,
  peakShare: 0.25,
  verdict: 'sparse',
};

/** `count` words of 300 ms each, all with this confidence. */
function words(count: number, confidence: number): RecognizedWord[] {
  return Array.from({ length: count }, (_, i) => ({
    text: `word${i}`,
    start_ms: i * 400,
    end_ms: i * 400 + 300,
    confidence,
  }));
}

describe("the local engine's verdict on a recording", () => {
  it('says no_speech when the audio has no speech, whatever words the recogniser invented', () => {
    expect(recordingNotice(words(12, 0.9), notHeard)).toBe('no_speech');
  });

  it('says no_speech when the recogniser found no words', () => {
    expect(recordingNotice([], heard)).toBe('no_speech');
    expect(recordingNotice([], tooShort)).toBe('no_speech');
  });

  it(`says low_confidence when the words' weighted confidence is below ${LOW_CONFIDENCE_BELOW}`, () => {
    expect(recordingNotice(words(LOW_CONFIDENCE_MIN_WORDS, 0.3), heard)).toBe('low_confidence');
    expect(recordingNotice(words(20, LOW_CONFIDENCE_BELOW + 0.01), heard)).toBeUndefined();
  });

  it('weighs long words more than short ones', () => {
    const long = { text: 'committee', start_ms: 0, end_ms: 2000, confidence: 0.9 };
    const short = words(LOW_CONFIDENCE_MIN_WORDS, 0.2).map((word) => ({
      ...word,
      start_ms: word.start_ms + 2000,
      end_ms: word.start_ms + 2050,
    }));
    // 2000 ms at 0.9 against 8 x 50 ms at 0.2: 0.78.
    expect(recordingNotice([long, ...short], heard)).toBeUndefined();
  });

  it('never flags a clip of a few words, whose confidence says too little', () => {
    expect(recordingNotice(words(LOW_CONFIDENCE_MIN_WORDS - 1, 0.1), heard)).toBeUndefined();
  });

  it('keeps sparse speech the recogniser follows, and drops what it cannot follow there as no speech', () => {
    expect(recordingNotice(words(12, SPARSE_SPEECH_FROM), sparse)).toBeUndefined();
    expect(recordingNotice(words(12, SPARSE_SPEECH_FROM - 0.01), sparse)).toBe('no_speech');
  });

  it('lets the recogniser decide when the recording is too short for the speech check', () => {
    expect(recordingNotice(words(3, 0.9), tooShort)).toBeUndefined();
  });
});

describe('the speech check over the chunks of a long recording', () => {
  it('hears speech when any chunk has it, and none only when no chunk does', () => {
    expect(combinePresence([notHeard, heard, notHeard]).verdict).toBe('present');
    expect(combinePresence([notHeard, notHeard]).verdict).toBe('absent');
    expect(combinePresence([notHeard, sparse]).verdict).toBe('sparse');
    const quietOnly = { ...notHeard, quietSpeechWindows: 6 };
    expect(combinePresence([notHeard, quietOnly]).verdict).toBe('sparse');
    expect(combinePresence([tooShort]).verdict).toBe('unknown');
    expect(combinePresence([notHeard, heard])).toMatchObject({
      windows: 40,
      speechWindows: 15,
      peakShare: 0.75,
    });
  });
});

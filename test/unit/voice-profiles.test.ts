import { describe, expect, it } from 'vitest';
import type { Note } from '../../src/domain/note.ts';
import { matchesEndedByNames, withoutMatches } from '../../src/domain/voice-matches.ts';
import type { VoiceProfile } from '../../src/domain/voice-profile.ts';
import { knownVoices } from '../../src/domain/voice-profiles.ts';
import { speakerVoices } from '../../src/domain/voice-vectors.ts';

function profile(profileId: string, name: string, vector: number[]): VoiceProfile {
  return {
    account_id: 'a',
    profile_id: profileId,
    name,
    voices_by: 'voice-model:test',
    vector,
    speech_ms: 10_000,
    taught: 1,
    created_at: 0,
    updated_at: 0,
  };
}

const heard = (vector: number[], speech_ms = 10_000) => ({ vector, speech_ms });

describe('naming known voices', () => {
  it('names each speaker after the closest profile at or above the threshold, each profile once', () => {
    const ada = profile('vp_a', 'Ada', [1, 0, 0]);
    const bo = profile('vp_b', 'Bo', [0, 1, 0]);
    const matches = knownVoices(
      [
        ['Speaker 1', heard([0.8, 0.6, 0])],
        ['Speaker 2', heard([0.9, 0.436, 0])],
        ['Speaker 3', heard([0, 0, 1])],
      ],
      [ada, bo],
    );
    // Speaker 2 is closer to Ada (0.9) than Speaker 1 (0.8): Ada names Speaker 2; Speaker 1 is
    // 0.6 from Bo, at the threshold; Speaker 3 is like no one.
    expect(Object.fromEntries([...matches].map(([label, match]) => [label, match.name]))).toEqual({
      'Speaker 2': 'Ada',
      'Speaker 1': 'Bo',
    });
    expect(matches.get('Speaker 2')).toEqual({
      profile_id: 'vp_a',
      name: 'Ada',
      similarity: 0.9,
      status: 'suggested',
    });
  });

  it('names no one below the threshold, nor a speaker heard too briefly', () => {
    const ada = profile('vp_a', 'Ada', [1, 0]);
    expect(knownVoices([['Speaker 1', heard([0.59, 0.807])]], [ada]).size).toBe(0);
    expect(knownVoices([['Speaker 1', heard([1, 0], 1_000)]], [ada]).size).toBe(0);
  });
});

describe("a speaker's voice", () => {
  it('is the mean of the turns their segments overlap, weighted by the overlap, at unit length', () => {
    const voices = speakerVoices(
      [
        { speaker: 'Speaker 1', start_ms: 0, end_ms: 3_000 },
        { speaker: 'Speaker 2', start_ms: 3_000, end_ms: 4_000 },
        { speaker: 'Speaker 1', start_ms: 4_000, end_ms: 5_000 },
      ],
      [
        { start_ms: 0, end_ms: 3_000, vector: [1, 0] },
        { start_ms: 3_000, end_ms: 5_000, vector: [0, 1] },
      ],
    );
    const first = voices.get('Speaker 1');
    expect(first?.speech_ms).toBe(4_000);
    expect(first?.vector[0]).toBeCloseTo(3 / Math.hypot(3, 1));
    expect(voices.get('Speaker 2')).toEqual({ vector: [0, 1], speech_ms: 1_000 });
  });
});

describe('what ends a voice match', () => {
  const note = {
    speaker_names: { 'Speaker 1': 'Ada', 'Speaker 2': 'Bo' },
    voice_matches: {
      'Speaker 1': { profile_id: 'vp_a', name: 'Ada', similarity: 0.8, status: 'suggested' },
      'Speaker 2': { profile_id: 'vp_b', name: 'Bo', similarity: 0.7, status: 'confirmed' },
    },
  } as unknown as Note;

  it('a person naming the speaker otherwise; the same name keeps it', () => {
    expect(matchesEndedByNames(note, { speaker_names: { 'Speaker 1': 'Adele', 'Speaker 2': 'Bo' } })).toEqual(
      {
        voice_matches: { 'Speaker 1': null },
      },
    );
    expect(matchesEndedByNames(note, { title: 'x' })).toEqual({});
  });

  it("takes a suggested match's name with it, never a confirmed one's", () => {
    expect(withoutMatches(note, ['Speaker 1', 'Speaker 2'])).toEqual({
      voice_matches: { 'Speaker 1': null, 'Speaker 2': null },
      speaker_names: { 'Speaker 1': null },
    });
  });

  it("takes a confirmed match's name too when the person rejects it", () => {
    expect(withoutMatches(note, ['Speaker 2'], { names: 'given' })).toEqual({
      voice_matches: { 'Speaker 2': null },
      speaker_names: { 'Speaker 2': null },
    });
  });
});

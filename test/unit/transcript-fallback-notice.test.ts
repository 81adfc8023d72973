import { describe, expect, it } from 'vitest';
import { buildTranscription } from '../../src/domain/transcript.ts';
import type { RecognizedWord } from '../../src/ports/speech-to-text.ts';

const words: RecognizedWord[] = ['the', 'release', 'ships', 'on', 'friday'].map((text, i) => ({
  text,
  start_ms: i * 400,
  end_ms: i * 400 + 300,
  confidence: 0.2,
}));
const fallback = 'Whisper (base.en) is unavailable: offline. This transcript was made by pocketsphinx.';
const base = { duration_ms: 3000, engine: 'local-pocketsphinx', language: 'en-US' };

describe("a transcript made by the local default's fallback engine", () => {
  it('carries the engine_fallback notice with the reason as its detail', () => {
    const transcript = buildTranscription(words, { ...base, fallback });
    expect(transcript.notice).toEqual({ code: 'engine_fallback', detail: fallback });
    expect(transcript.full_text).toBe('The release ships on friday.');
  });

  it('says low confidence no more: the fallback explains it', () => {
    const transcript = buildTranscription(words, { ...base, notice: 'low_confidence', fallback });
    expect(transcript.notice?.code).toBe('engine_fallback');
  });

  it('says no speech rather than which engine heard nothing', () => {
    expect(buildTranscription([], { ...base, fallback }).notice?.code).toBe('no_speech');
    expect(buildTranscription(words, { ...base, notice: 'no_speech', fallback }).notice?.code).toBe(
      'no_speech',
    );
  });

  it('has no notice when Whisper made it and heard speech', () => {
    expect(buildTranscription(words, { ...base, engine: 'whisper.cpp:base.en' }).notice).toBeNull();
  });
});

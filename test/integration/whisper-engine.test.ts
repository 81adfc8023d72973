import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';
import { whisperTestModel } from '../support/whisper-test-model.ts';

let service: RunningService;

beforeAll(async () => {
  // The real binding and whisper.cpp, with a model of random weights: words are nonsense, the
  // plumbing (model load, audio in, pieces out, times, engine and language) is real.
  service = await startService({
    env: {
      NOTES_SPEECH_ENGINE: 'whisper',
      NOTES_WHISPER_MODEL: await whisperTestModel(),
      NOTES_WHISPER_LANGUAGE: 'en',
    },
  });
}, 120_000);

afterAll(() => service?.stop());

interface Segment {
  start_ms: number;
  end_ms: number;
  text: string;
  words?: { start_ms: number; end_ms: number; text: string; confidence?: number }[];
}

describe('the embedded Whisper engine, over HTTP', () => {
  it('says in the banner and in /readyz that Whisper is the engine, with its model ready', async () => {
    expect(service.output()).toMatch(
      /Speech: +Whisper \S*ggml-random-weights\.bin \(whisper\.cpp, on this machine\)/,
    );
    const response = await fetch(`${service.baseUrl}/readyz`);
    const body = (await response.json()) as {
      checks: Record<string, string>;
      speech: Record<string, unknown>;
    };
    expect(response.status).toBe(200);
    expect(body.checks.speech).toBe('ok');
    expect(body.speech).toMatchObject({ setting: 'whisper', engine: 'whisper', state: 'ready' });
  });

  it('transcribes a recording with whisper.cpp: segments, word times inside the recording and a confidence per word, the engine and language named', async () => {
    const api = client(service.baseUrl, service.apiKey);
    const noteId = randomUUID();
    const fixture = await speechFixture('slt', 'wav');
    await submitAndUpload(api, noteId, fixture.file, fixture.contentType, 'Whisper plumbing');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    const transcript = final.body as {
      engine: string;
      language: string;
      duration_ms: number;
      notice: unknown;
      conversation_segments: Segment[];
    };
    expect(transcript.engine).toBe('whisper.cpp:ggml-random-weights.bin');
    expect(transcript.language).toBe('en');
    // The fixture is about 25 s of speech: the recording's length reached whisper.cpp whole.
    expect(transcript.duration_ms).toBeGreaterThan(15_000);
    expect(transcript.conversation_segments.length).toBeGreaterThan(0);
    const words = transcript.conversation_segments.flatMap((segment) => segment.words ?? []);
    expect(words.length).toBeGreaterThan(0);
    for (const word of words) {
      expect(word.text.trim()).not.toBe('');
      expect(word.start_ms).toBeGreaterThanOrEqual(0);
      expect(word.end_ms).toBeGreaterThanOrEqual(word.start_ms);
      expect(word.end_ms).toBeLessThanOrEqual(transcript.duration_ms);
      // From whisper.cpp's token probabilities (random weights: low, but each a probability).
      expect(word.confidence).toBeGreaterThanOrEqual(0);
      expect(word.confidence).toBeLessThanOrEqual(1);
    }
  });
});

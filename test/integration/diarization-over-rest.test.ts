/**
 * Speaker counts through the REST API on the local runtime (ffmpeg, pocketsphinx and the diarizer in
 * its worker thread), on voices composed with exact turns (test/fixtures/real-voices/): the issue's
 * cases of a reader that must stay one speaker, two clearly different voices in a low-bit-rate MP3,
 * the real multi-speaker fixtures, and a `speakers_expected` hint that must be obeyed exactly.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConversationFixture, fixtureNamed } from '../fixtures/conversations/generate.ts';
import { ensureRealVoices } from '../fixtures/real-voices/generate.ts';
import { ensureMixes, mixSpecs } from '../fixtures/real-voices/mixes.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

let service: RunningService;
let api: Api;
let fixtures: ConversationFixture[];
const fixture = (name: string) => fixtureNamed(fixtures, name);

beforeAll(async () => {
  const mixes = await ensureMixes(
    mixSpecs('librivox-reader-60s', 'flite-slt-rms-alternating', 'codec2-klettres-woman-man'),
  );
  fixtures = [...mixes, ...(await ensureRealVoices())];
  service = await startService();
  api = client(service.baseUrl, (await createAccount(service, 'speakers')).api_key);
}, 300_000);
afterAll(() => service?.stop());

/** The distinct speaker labels of a recording transcribed through the API. */
async function speakersOf(audio: string, extra: Record<string, unknown> = {}): Promise<Set<string>> {
  const noteId = randomUUID();
  const contentType = audio.endsWith('.mp3') ? 'audio/mpeg' : 'audio/wav';
  await submitAndUpload(api, noteId, audio, contentType, 'Speakers', extra);
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, { deadlineMs: 400_000 });
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  const segments = final.body.conversation_segments as { speaker: string }[];
  return new Set(segments.map((segment) => segment.speaker));
}

describe('speakers of recordings uploaded through the API', () => {
  it('a single LibriVox reader looped to a minute stays one speaker', async () => {
    expect(await speakersOf(fixture('librivox-reader-60s').audio)).toEqual(new Set(['Speaker 1']));
  }, 420_000);

  it('a 2.5-minute MP3 (32 kbit/s) of flite voices slt and rms in alternating turns has two speakers', async () => {
    const speakers = await speakersOf(fixture('flite-slt-rms-alternating-mp3-32k').audio);
    expect(speakers).toEqual(new Set(['Speaker 1', 'Speaker 2']));
  }, 420_000);

  it('the real multi-speaker recordings come back with their true speaker counts', async () => {
    const counts = await Promise.all(
      ['real-two-speakers', 'real-three-speakers', 'real-short-turns'].map(async (name) => [
        name,
        (await speakersOf(fixture(name).audio)).size,
      ]),
    );
    expect(Object.fromEntries(counts)).toEqual({
      'real-two-speakers': 2,
      'real-three-speakers': 3,
      'real-short-turns': 2,
    });
  }, 420_000);

  it('speakers_expected is obeyed exactly, also where the diarizer alone would find more or fewer', async () => {
    // A radio amateur, a test speaker and a woman reading letters, where the diarizer alone finds
    // four; and the three real voices told there are two.
    const [three, two] = await Promise.all([
      speakersOf(fixture('codec2-klettres-woman-man').audio, { speakers_expected: 3 }),
      speakersOf(fixture('real-three-speakers').audio, { speakers_expected: 2 }),
    ]);
    expect(three).toEqual(new Set(['Speaker 1', 'Speaker 2', 'Speaker 3']));
    expect(two).toEqual(new Set(['Speaker 1', 'Speaker 2']));
  }, 420_000);
});

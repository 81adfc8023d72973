import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  germanSpeech,
  type NoSpeechName,
  noSpeechRecording,
  quietSpeech,
  reversedSpeech,
} from '../fixtures/confidence-material.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/** The transcript as getTranscription shows it, as far as these tests read it. */
interface Transcript {
  full_text: string;
  confidence: number | null;
  notice: { code: string; detail: string } | null;
  conversation_segments: {
    text: string;
    confidence: number | null;
    words?: { text: string; start_ms: number; end_ms: number; confidence: number | null }[];
  }[];
}

let service: RunningService;
let api: Api;

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, (await createAccount(service, 'confidence')).api_key);
});
afterAll(() => service?.stop());

/** Uploads a WAV through the API, waits for the job, and returns the note ID and its transcript. */
async function transcribe(file: string, title: string): Promise<{ noteId: string; transcript: Transcript }> {
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, file, 'audio/wav', title);
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return { noteId, transcript: final.body as unknown as Transcript };
}

describe('a recording without speech completes with no segments and says so', () => {
  for (const name of ['two-tones', 'silence'] satisfies NoSpeechName[]) {
    it(`answers ${name} with zero segments and a no_speech notice instead of invented words`, async () => {
      const { noteId, transcript } = await transcribe(await noSpeechRecording(name), name);
      expect(transcript.conversation_segments).toEqual([]);
      expect(transcript.full_text).toBe('');
      expect(transcript.confidence).toBeNull();
      expect(transcript.notice?.code).toBe('no_speech');
      expect(transcript.notice?.detail).toMatch(/No speech was heard/);

      const note = await api('GET', `/v1/notes/${noteId}`);
      expect(note.body.transcription_status).toBe('completed');
      expect((note.body.transcription as Transcript).notice?.code).toBe('no_speech');

      // Nothing to summarise: refused before a run is queued, and no job is left behind.
      const insights = await api('POST', `/v1/notes/${noteId}/insights`, {});
      expect(insights.status).toBe(409);
      expect(insights.body.detail).toMatch(/none was heard/);
      expect((await api('GET', `/v1/notes/${noteId}/insights`)).status).toBe(404);
      const epiphany = await api('POST', `/v1/notes/${noteId}/artifacts/epiphany`, {});
      expect(epiphany.status).toBe(409);
      expect(epiphany.body.detail).toMatch(/none was heard/);
    });
  }
});

describe("the recogniser's confidence on speech", () => {
  let clean: { noteId: string; transcript: Transcript };

  beforeAll(async () => {
    clean = await transcribe((await speechFixture('slt', 'wav')).file, 'clean speech');
  }, 180_000);

  it('scores every segment and every word of clear speech between 0 and 1, without a notice', () => {
    const { transcript } = clean;
    expect(transcript.notice).toBeNull();
    expect(transcript.conversation_segments.length).toBeGreaterThan(0);
    expect(transcript.confidence).toBeGreaterThanOrEqual(0.5);
    for (const segment of transcript.conversation_segments) {
      expect(segment.confidence).toBeGreaterThan(0);
      expect(segment.confidence).toBeLessThanOrEqual(1);
      expect(segment.words?.map((word) => word.text)).toEqual(segment.text.split(' '));
      for (const word of segment.words ?? []) {
        expect(word.confidence).toBeGreaterThanOrEqual(0);
        expect(word.confidence).toBeLessThanOrEqual(1);
        expect(word.end_ms).toBeGreaterThanOrEqual(word.start_ms);
      }
    }
  });

  it("leaves the words out of getNote's transcription but keeps the confidences", async () => {
    const note = await api('GET', `/v1/notes/${clean.noteId}`);
    const embedded = note.body.transcription as Transcript;
    expect(embedded.confidence).toBe(clean.transcript.confidence);
    expect(embedded.conversation_segments.map((segment) => segment.confidence)).toEqual(
      clean.transcript.conversation_segments.map((segment) => segment.confidence),
    );
    expect(embedded.conversation_segments.every((segment) => segment.words === undefined)).toBe(true);
  });

  it('is lower on the same speech played backwards than on the clean recording', async () => {
    const { transcript } = await transcribe(await reversedSpeech(), 'reversed speech');
    expect(transcript.conversation_segments.length).toBeGreaterThan(0);
    expect(transcript.confidence).toBeLessThan(clean.transcript.confidence ?? 0);
  });

  it('keeps the words of speech recorded 45 dB quieter, instead of calling it silence', async () => {
    const { transcript } = await transcribe(await quietSpeech(), 'quiet speech');
    expect(transcript.notice?.code).not.toBe('no_speech');
    expect(transcript.conversation_segments.length).toBeGreaterThan(0);
    const heard = new Set(transcript.full_text.toLowerCase().match(/[a-z']+/g) ?? []);
    const said = clean.transcript.full_text.toLowerCase().match(/[a-z']+/g) ?? [];
    expect(said.filter((word) => heard.has(word)).length).toBeGreaterThan(said.length / 2);
  });

  it('flags German speech as low_confidence, with a message that names the other engines', async () => {
    const { transcript } = await transcribe(await germanSpeech(), 'German speech');
    expect(transcript.notice?.code).toBe('low_confidence');
    expect(transcript.notice?.detail).toMatch(/English only/);
    expect(transcript.notice?.detail).toMatch(/NOTES_SPEECH_ENGINE=transcribe/);
    expect(transcript.notice?.detail).toMatch(/NOTES_OPENAI_BASE_URL/);
    expect(transcript.confidence).toBeLessThan(0.5);
  });

  it('gives the words a person typed in a correction confidence 1 and keeps the others', async () => {
    const noteId = clean.noteId;
    const read = await api('GET', `/v1/notes/${noteId}/transcription`);
    const [first] = (read.body as unknown as Transcript).conversation_segments;
    const words = first?.words ?? [];
    const typed = [...words.slice(0, -1).map((word) => word.text), 'Zanzibar.'].join(' ');
    const edited = await api('POST', `/v1/notes/${noteId}/transcription/edits`, {
      headers: { 'if-match': read.headers.get('etag') ?? '' },
      body: { edits: [{ op: 'replace_text', segment: 0, text: typed }] },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const after = (edited.body as unknown as Transcript).conversation_segments[0]?.words ?? [];
    expect(after.at(-1)).toMatchObject({ text: 'Zanzibar.', confidence: 1 });
    expect(after.slice(0, -1).map((word) => word.confidence)).toEqual(
      words.slice(0, -1).map((word) => word.confidence),
    );
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wordAttribution } from '../../src/adapters/speech/diarization/metrics.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { notAudioFixture, speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload, type UploadTarget } from '../support/transcribe.ts';

let service: RunningService;
let api: Api;
let apiKey: string;
const transcriptTexts: string[] = [];
/** Generated text (Insights, artifacts, answers) that must not reach the logs either. */
const generatedTexts: string[] = [];
const transcribedNotes: string[] = [];

beforeAll(async () => {
  service = await startService();
  // A second account, so the key printed once at first start is not the one this flow uses.
  apiKey = (await createAccount(service, 'flow')).api_key;
  api = client(service.baseUrl, apiKey);
});
afterAll(() => service?.stop());

interface Segment {
  start_ms: number;
  end_ms: number;
  speaker: string;
  text: string;
  has_overlap: boolean;
  words?: unknown[];
}

describe('a recording uploaded through the API becomes a transcript', () => {
  for (const [voice, format] of [
    ['slt', 'wav'],
    ['rms', 'mp3'],
  ] as const) {
    it(`transcribes a ${format.toUpperCase()} of clear speech (${voice}) into text that matches the script`, async () => {
      const fixture = await speechFixture(voice, format);
      const noteId = randomUUID();
      const submitted = await submitAndUpload(
        api,
        noteId,
        fixture.file,
        fixture.contentType,
        `${voice} ${format}`,
      );
      expect(submitted.body).toMatchObject({
        note_id: noteId,
        kind: 'transcription',
        status: 'queued',
        stage: 'awaiting_upload',
        title: `${voice} ${format}`,
        attempts: 0,
      });
      expect(submitted.body.upload).toMatchObject({
        method: 'PUT',
        headers: { 'Content-Type': fixture.contentType },
      });

      const { final, seen } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status).toBe(200);
      for (const pending of seen.slice(0, -1)) {
        expect(pending.status).toBe(202);
        expect(['queued', 'processing']).toContain(pending.body.status);
        expect(pending.body.note_id).toBe(noteId);
      }

      const transcription = final.body as {
        full_text: string;
        timestamped_full_text: string;
        conversation_segments: Segment[];
        duration_ms: number;
      };
      transcriptTexts.push(transcription.full_text);
      transcribedNotes.push(noteId);
      expect(wordOverlap(fixture.script, transcription.full_text)).toBeGreaterThanOrEqual(0.6);
      expect(transcription.duration_ms).toBeGreaterThan(20_000);
      const segments = transcription.conversation_segments;
      expect(segments.length).toBeGreaterThan(0);
      let previousEnd = 0;
      for (const segment of segments) {
        expect(segment.start_ms).toBeLessThan(segment.end_ms);
        expect(segment.start_ms).toBeGreaterThanOrEqual(previousEnd);
        expect(segment.end_ms).toBeLessThanOrEqual(transcription.duration_ms);
        expect(segment).toMatchObject({ speaker: 'Speaker 1', has_overlap: false });
        previousEnd = segment.end_ms;
      }
      const lines = transcription.timestamped_full_text.split('\n');
      expect(lines).toHaveLength(segments.length);
      for (const line of lines) expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\] Speaker 1: \S/);

      const note = await api('GET', `/v1/notes/${noteId}`);
      // getNote embeds the same transcript, its segments without their words (getTranscription has them).
      const withoutWords = {
        ...transcription,
        conversation_segments: transcription.conversation_segments.map(
          ({ words: _words, ...segment }) => segment,
        ),
      };
      expect(note.body).toMatchObject({ note_id: noteId, transcription_status: 'completed' });
      expect(note.body.transcription).toEqual(withoutWords);
      expect(note.body.audio).toMatchObject({ content_type: fixture.contentType });

      // Submitting the same note again starts nothing new.
      const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
        body: { title: 'renamed?', content_type: fixture.contentType, size_bytes: 10 },
      });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'completed', title: `${voice} ${format}` });
    });
  }

  it('ends a file that is not audio as failed with a useful detail, and a resubmission asks for a new upload', async () => {
    const file = await notAudioFixture();
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, 'audio/mpeg');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, { deadlineMs: 60_000 });
    expect(final.status).toBe(409);
    expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
    expect(final.body.detail).toMatch(/not .*audio/i);

    const retry = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'x', content_type: 'audio/wav', size_bytes: 100 },
    });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ status: 'queued', stage: 'awaiting_upload' });
    expect(retry.body.upload).toBeDefined();
  });
});

describe('a conversation uploaded through the API', () => {
  it('comes back with each speaker’s segments labelled, words on the right speaker', async () => {
    const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
    if (!conversation) throw new Error('two-speakers fixture missing');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, conversation.audio, 'audio/wav', 'Two people');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status).toBe(200);
    const segments = final.body.conversation_segments as Segment[];
    expect(new Set(segments.map((segment) => segment.speaker))).toEqual(new Set(['Speaker 1', 'Speaker 2']));
    // Each segment's words, spread over its time, against the reference turns.
    const words = segments.flatMap((segment) => {
      const tokens = segment.text.split(/\s+/);
      const step = (segment.end_ms - segment.start_ms) / tokens.length;
      return tokens.map((text, i) => ({
        text,
        start_ms: segment.start_ms + i * step,
        end_ms: segment.start_ms + (i + 1) * step,
        speaker: segment.speaker,
      }));
    });
    expect(wordAttribution(words, conversation.truth.turns).share).toBeGreaterThan(0.9);
  });
});

describe('submitting the same note ID is idempotent', () => {
  const submission = { title: 'Idempotent', content_type: 'audio/wav', size_bytes: 1234 };

  it('returns the same job and a fresh upload URL when repeated before the upload', async () => {
    const noteId = randomUUID();
    const first = await api('POST', `/v1/notes/${noteId}/transcription`, { body: submission });
    await new Promise((done) => setTimeout(done, 1100));
    const second = await api('POST', `/v1/notes/${noteId}/transcription`, { body: submission });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.created_at).toBe(first.body.created_at);
    expect((second.body.upload as UploadTarget).url).not.toBe((first.body.upload as UploadTarget).url);
    const list = await api('GET', '/v1/notes?limit=100');
    expect(
      (list.body.notes as Array<{ note_id: string }>).filter((note) => note.note_id === noteId),
    ).toHaveLength(1);
  });

  it('yields one note and one job when the same note is submitted concurrently', async () => {
    const noteId = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api('POST', `/v1/notes/${noteId}/transcription`, { body: submission })),
    );
    for (const response of responses) expect(response.status).toBe(202);
    expect(new Set(responses.map((response) => response.body.created_at)).size).toBe(1);
    const list = await api('GET', '/v1/notes?limit=100');
    expect(
      (list.body.notes as Array<{ note_id: string }>).filter((note) => note.note_id === noteId),
    ).toHaveLength(1);
  });
});

describe('results generated from the transcript', () => {
  it('come back as Insights, every artifact kind and an answer (their text is checked against the logs below)', async () => {
    const noteId = transcribedNotes[0] ?? '';
    expect(noteId).not.toBe('');
    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    const insights = await pollUntilDone(api, `/v1/notes/${noteId}/insights`);
    expect(insights.final.status).toBe(200);
    generatedTexts.push(JSON.stringify(insights.final.body));
    for (const kind of ['epiphany', 'deep_research', 'podcast']) {
      expect((await api('POST', `/v1/notes/${noteId}/artifacts/${kind}`)).status).toBe(202);
      const artifact = await pollUntilDone(api, `/v1/notes/${noteId}/artifacts/${kind}`);
      expect(artifact.final.status).toBe(200);
      generatedTexts.push(JSON.stringify(artifact.final.body.content));
    }
    const answer = await api('POST', '/v1/ask', {
      body: { question: 'What is the weekly planning meeting about?' },
    });
    expect(answer.status).toBe(200);
    generatedTexts.push(String(answer.body.answer));
  });
});

describe('logs', () => {
  it('contain no API key, no bearer header, no transcript text and no generated text', () => {
    const logs = service.output();
    expect(logs).not.toContain(apiKey);
    expect(logs).not.toMatch(/Bearer\s+svc_sk_/);
    // The start-up announcement shows the first local key once (see the next test); no other key may appear.
    expect(logs.replace(service.apiKey, '')).not.toContain('svc_sk_');
    expect(transcriptTexts.length).toBe(2);
    expect(generatedTexts.length).toBe(5);
    for (const text of [...transcriptTexts, ...generatedTexts]) {
      // Any run of six transcript words would be a leak.
      const words = text.split(/\s+/);
      for (let i = 0; i + 6 <= words.length; i += 3)
        expect(logs).not.toContain(words.slice(i, i + 6).join(' '));
    }
  });

  it('show the first local key only once, in the start-up announcement', () => {
    const occurrences = service.output().split(service.apiKey).length - 1;
    expect(occurrences).toBe(1);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import {
  type ConversationFixture,
  ensureConversations,
  fixtureNamed,
  referenceSpeakerOf,
} from '../fixtures/conversations/generate.ts';
import { type ApiResponse, client } from '../support/api.ts';
import { startInProcess } from '../support/in-process-runtime.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * "Apply to similar segments" over HTTP, on a real transcript of two voices (flite slt and rms; the
 * local diarizer's voice statistics, NOTES_VOICE_MODEL=off as in every test): the diarizer's mistake is
 * made by a correction (three of one voice's segments given to the other speaker), a person fixes one
 * of them back, and the service must propose exactly the other two; applying them is one revision.
 */
let service: RunningService;
let api: ReturnType<typeof client>;
let fixture: ConversationFixture;
let noteId: string;

interface Segment {
  start_ms: number;
  end_ms: number;
  speaker_label: string;
}

beforeAll(async () => {
  fixture = fixtureNamed(await ensureConversations(), 'two-speakers');
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  noteId = randomUUID();
  await submitAndUpload(api, noteId, fixture.audio, 'audio/wav', 'Two voices', { speakers_expected: 2 });
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
}, 180_000);

afterAll(() => service?.stop());

const truthOf = (segment: { start_ms: number; end_ms: number }) => referenceSpeakerOf(fixture.truth, segment);

async function transcript(): Promise<{ segments: Segment[]; etag: string; revision: number }> {
  const response = await api('GET', `/v1/notes/${noteId}/transcription`);
  const body = response.body as { conversation_segments: Segment[]; revision: number };
  return {
    segments: body.conversation_segments,
    etag: String(response.headers.get('etag')),
    revision: body.revision,
  };
}

async function edit(edits: unknown[], etag: string): Promise<ApiResponse> {
  const response = await api('POST', `/v1/notes/${noteId}/transcription/edits`, {
    body: { edits },
    headers: { 'if-match': etag },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response;
}

describe('apply to similar segments', () => {
  it('proposes exactly the segments of the corrected voice still given to the other speaker, and applies them as one undoable revision', async () => {
    const start = await transcript();
    expect(new Set(start.segments.map((s) => s.speaker_label)).size).toBe(2);
    // Which label is which voice, by the reference; then the diarizer's mistake, made by hand.
    const voiceOf = new Map(start.segments.map((s) => [s.speaker_label, truthOf(s)]));
    const [labelA, labelB] = [...voiceOf.keys()].sort();
    const ofB = start.segments.flatMap((s, i) =>
      s.speaker_label === labelB && truthOf(s) === voiceOf.get(labelB) ? [i] : [],
    );
    expect(ofB.length).toBeGreaterThanOrEqual(4);
    const wrong = ofB.slice(0, 3);
    await edit([{ op: 'set_speakers', segments: wrong, speaker: labelA }], start.etag);

    // A person gives the first of them back to B, then asks for similar ones.
    const mistaken = await transcript();
    await edit([{ op: 'set_speaker', segment: wrong[0], speaker: labelB }], mistaken.etag);
    const similar = await api('POST', `/v1/notes/${noteId}/transcription/similar-segments`, {
      body: { speaker: labelB, examples: [wrong[0]] },
    });
    expect(similar.status, JSON.stringify(similar.body)).toBe(200);
    const found = similar.body as { speaker_label: string; segments: { segment: number }[]; etag: string };
    expect(found.speaker_label).toBe(labelB);
    expect(found.segments.map((s) => s.segment)).toEqual(wrong.slice(1));

    // Applied against the etag it gave: one revision, every segment back with its voice.
    const before = await transcript();
    expect(found.etag).toBe(before.etag);
    await edit(
      [{ op: 'set_speakers', segments: found.segments.map((s) => s.segment), speaker: labelB }],
      found.etag,
    );
    const applied = await transcript();
    expect(applied.revision).toBe(before.revision + 1);
    expect(applied.segments.map((s) => s.speaker_label)).toEqual(start.segments.map((s) => s.speaker_label));

    // One undo takes the whole application back.
    const undone = await api('POST', `/v1/notes/${noteId}/transcription/undo`, {
      body: {},
      headers: { 'if-match': applied.etag },
    });
    expect(undone.status).toBe(200);
    expect((await transcript()).segments.map((s) => s.speaker_label)).toEqual(
      before.segments.map((s) => s.speaker_label),
    );
  });

  it("refuses an example that is not the speaker's with 422, and a note that does not exist with 404", async () => {
    const { segments } = await transcript();
    const other = segments.findIndex((s) => s.speaker_label !== segments[0]?.speaker_label);
    const refused = await api('POST', `/v1/notes/${noteId}/transcription/similar-segments`, {
      body: { speaker: segments[0]?.speaker_label, examples: [other] },
    });
    expect(refused.status).toBe(422);
    expect(String(refused.body.detail)).toMatch(/^examples: segment \d+ is not Speaker \d's/);
    const missing = await api('POST', `/v1/notes/${randomUUID()}/transcription/similar-segments`, {
      body: { speaker: 'Speaker 1' },
    });
    expect(missing.status).toBe(404);
  });
});

describe('a transcript without voices', () => {
  it('answers 409 saying why: made before voices were kept, or by an engine that labels speakers itself', async () => {
    const inProcess = await startInProcess({ workers: false });
    try {
      const accountId = String((await inProcess.api('GET', '/v1/account')).body.account_id);
      const id = randomUUID();
      await storeTranscribedNote(getServices(), accountId, {
        id,
        title: 'Older note',
        text: 'We ship on Friday.',
      });
      const response = await inProcess.api('POST', `/v1/notes/${id}/transcription/similar-segments`, {
        body: { speaker: 'Speaker 1' },
      });
      expect(response.status).toBe(409);
      expect(String(response.body.detail)).toMatch(/^This transcript keeps no voices to compare/);
    } finally {
      await inProcess.stop();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_LINK_SECONDS } from '../../src/domain/note-audio.ts';
import type { ApiResponse } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { submitAndUpload } from '../support/transcribe.ts';

/**
 * getNoteAudio (issue 15): a short-lived, account-scoped link to a note's recording that a browser's
 * <audio> element plays and seeks in (Range requests), against the local object store.
 */
let service: InProcessService;
let noteId: string;
let recording: Buffer;

interface AudioLink {
  url: string;
  expires_at: number;
  content_type: string;
  size_bytes: number;
}

/** The worker records the upload a moment after the PUT: 409 until then. */
async function audioLink(id: string): Promise<ApiResponse<AudioLink>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await service.api<AudioLink>('GET', `/v1/notes/${id}/audio`);
    if (response.status !== 409 || Date.now() > deadline) return response;
    await sleep(250);
  }
}

beforeAll(async () => {
  service = await startInProcess();
  const { file, contentType } = await speechFixture('slt', 'mp3');
  recording = await readFile(file);
  noteId = randomUUID();
  await submitAndUpload(service.api, noteId, file, contentType, 'Playback');
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe("a note's recording, played in a browser", () => {
  it('gives a link valid for minutes, not hours, that is not cached', async () => {
    const before = Date.now();
    const response = await audioLink(noteId);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toMatchObject({ content_type: 'audio/mpeg', size_bytes: recording.length });
    expect(AUDIO_LINK_SECONDS).toBeGreaterThanOrEqual(5 * 60);
    expect(AUDIO_LINK_SECONDS).toBeLessThanOrEqual(15 * 60);
    expect(response.body.expires_at).toBeGreaterThanOrEqual(before + AUDIO_LINK_SECONDS * 1000);
    expect(response.body.expires_at).toBeLessThanOrEqual(Date.now() + AUDIO_LINK_SECONDS * 1000);
  });

  it('serves the whole recording inline with its content type', async () => {
    const { body } = await audioLink(noteId);
    const audio = await fetch(body.url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    expect(audio.headers.get('content-disposition')).toBe('inline');
    expect(Buffer.from(await audio.arrayBuffer()).equals(recording)).toBe(true);
  });

  it.each([
    ['the start', 0, 99],
    ['the middle (a seek)', 1000, 4095],
  ])('answers a Range request for %s with 206 and exactly those bytes', async (_label, first, last) => {
    const { body } = await audioLink(noteId);
    const part = await fetch(body.url, { headers: { range: `bytes=${first}-${last}` } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${first}-${last}/${recording.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(recording.subarray(first, last + 1))).toBe(true);
  });

  it('answers 409 with a detail while nothing has been uploaded', async () => {
    const waiting = randomUUID();
    const submitted = await service.api('POST', `/v1/notes/${waiting}/transcription`, {
      body: { title: 'Not uploaded', content_type: 'audio/wav', size_bytes: 1000 },
    });
    expect(submitted.status).toBe(202);
    const response = await service.api('GET', `/v1/notes/${waiting}/audio`);
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/no uploaded audio/);
  });

  it("answers 404 to another account, for this account's note", async () => {
    const other = await service.otherAccount('Other');
    const response = await other('GET', `/v1/notes/${noteId}/audio`);
    expect(response.status).toBe(404);
    expect(response.body).not.toHaveProperty('url');
  });

  it('answers 400 with a detail to a note ID that is not a UUID, and 404 to an unknown one', async () => {
    const bad = await service.api('GET', '/v1/notes/not-a-uuid/audio');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/note_id/);
    expect((await service.api('GET', `/v1/notes/${randomUUID()}/audio`)).status).toBe(404);
  });

  it('gives no access to any other object: an edited key breaks the signature', async () => {
    const { body } = await audioLink(noteId);
    const edited = body.url.replace(`/notes/${noteId}/audio`, `/notes/${noteId}/transcription.json`);
    expect(edited).not.toBe(body.url);
    expect((await fetch(edited)).status).toBe(403);
  });
});

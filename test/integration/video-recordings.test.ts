import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FFMPEG_QUIET, run } from '../fixtures/fixture-files.ts';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/** A small moving test picture: the codecs do real work, the files stay small and quick to encode. */
const PICTURE = ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10'];

/** How each container is made from the speech fixture (video codec + audio codec as phones and browsers use). */
const CONTAINERS = [
  {
    name: 'MP4 (H.264 + AAC)',
    file: 'call.mp4',
    contentType: 'video/mp4',
    codecs: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
  },
  {
    name: 'WebM (VP9 + Opus)',
    file: 'screen.webm',
    contentType: 'video/webm',
    codecs: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus'],
  },
  {
    name: 'MOV (H.264 + AAC)',
    file: 'phone.mov',
    contentType: 'video/quicktime',
    codecs: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
  },
  // Locally only: a deployment on Amazon Transcribe refuses MKV at submission (recording-types.ts).
  {
    name: 'MKV (H.264 + Opus)',
    file: 'obs.mkv',
    contentType: 'video/x-matroska',
    codecs: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'libopus'],
  },
] as const;

let service: RunningService;
let api: Api;
let dir: string;

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, (await createAccount(service, 'video')).api_key);
  dir = await mkdtemp(join(tmpdir(), 'notes-video-'));
});
afterAll(async () => {
  await service?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The speech fixture as the sound track of a video, written with ffmpeg at test time. */
async function videoWithSpeech(file: string, codecs: readonly string[]): Promise<string> {
  const speech = await speechFixture('slt', 'wav');
  const path = join(dir, file);
  await run('ffmpeg', [
    ...FFMPEG_QUIET,
    ...PICTURE,
    '-i',
    speech.file,
    '-map',
    '0:v',
    '-map',
    '1:a',
    ...codecs,
    '-shortest',
    path,
  ]);
  return path;
}

describe('a video recording uploaded through the API', () => {
  for (const container of CONTAINERS) {
    it(`is transcribed from its sound track when it is a ${container.name}`, async () => {
      const { script } = await speechFixture('slt', 'wav');
      const file = await videoWithSpeech(container.file, container.codecs);
      const noteId = randomUUID();
      await submitAndUpload(api, noteId, file, container.contentType, container.name);
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status, JSON.stringify(final.body)).toBe(200);
      expect(wordOverlap(script, String(final.body.full_text))).toBeGreaterThanOrEqual(0.6);
      expect(final.body.duration_ms).toBeGreaterThan(20_000);
      const note = await api('GET', `/v1/notes/${noteId}`);
      expect(note.body.audio).toMatchObject({ content_type: container.contentType });
    });
  }

  it('with no sound track ends failed with a detail that says so', async () => {
    const file = join(dir, 'silent-film.mp4');
    await run('ffmpeg', [
      ...FFMPEG_QUIET,
      ...PICTURE,
      '-t',
      '3',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      file,
    ]);
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, 'video/mp4');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, { deadlineMs: 60_000 });
    expect(final.status).toBe(409);
    expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
    expect(final.body.detail).toMatch(/^This file has no sound track, so there is nothing to transcribe/);
  });

  it('is refused with 400 naming the accepted types when its content type is not a recording', async () => {
    const submitted = await api('POST', `/v1/notes/${randomUUID()}/transcription`, {
      body: { title: 'slides', content_type: 'video/x-msvideo', size_bytes: 1000 },
    });
    expect(submitted.status).toBe(400);
    expect(String(submitted.body.detail)).toMatch(/content_type.*video\/mp4.*video\/x-matroska/s);
  });
});

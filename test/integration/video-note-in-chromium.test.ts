import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import { accessibilityChecks, launchChromium, signIn } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { SEGMENT_MS, storeListenableNote } from '../support/listenable-note.ts';

/**
 * A note whose recording is a video (`video/webm`, seeded through the runtime's stores and served by
 * the real local API) plays in a real headless Chromium as a video, above the same player controls,
 * with the transcript on the same page; an audio note keeps its hidden audio element.
 */
let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let videoNote: string;
let audioNote: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess();
  base = service.runtime.apiUrl;
  const account = String((await service.api('GET', '/v1/account')).body.account_id);
  videoNote = randomUUID();
  audioNote = randomUUID();
  await storeListenableNote(getServices(), account, {
    id: videoNote,
    title: 'Screen recording',
    segments: 4,
    video: true,
  });
  await storeListenableNote(getServices(), account, { id: audioNote, title: 'Phone call', segments: 4 });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(base);
  await signIn(page, (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim());
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function open(noteId: string): Promise<void> {
  await page.goto(`${base}/#/notes/${noteId}`);
  await page.getByRole('heading', { name: 'Transcript' }).waitFor();
}

/* Run in the page as a string: this file is compiled for Node, without the DOM's types. */
function shown(
  tag: 'video' | 'audio',
): Promise<{ ready: number; width: number; height: number; seconds: number; paused: boolean } | null> {
  return page.evaluate(`(() => {
    const media = document.querySelector('.player ${tag}[aria-label="Recording"]');
    if (!media) return null;
    const box = media.getBoundingClientRect();
    return { ready: media.readyState, width: box.width, height: box.height, seconds: media.currentTime, paused: media.paused };
  })()`);
}

describe('a video note in the web app', () => {
  it('shows the picture in the player and plays it with the same controls, the transcript on the page', async () => {
    await open(videoNote);
    await expect
      .poll(async () => (await shown('video'))?.ready ?? 0, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await shown('audio')).toBeNull();
    const before = await shown('video');
    expect(before?.width).toBeGreaterThan(100);
    expect(before?.height).toBeGreaterThan(60);
    // The picture leaves most of the screen to the transcript.
    expect(before?.height).toBeLessThanOrEqual(900 * 0.3 + 1);
    expect(await page.locator('[id^="segment-"]').count()).toBeGreaterThanOrEqual(4);

    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await expect
      .poll(async () => (await shown('video'))?.seconds ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(0.5);
    expect((await shown('video'))?.paused).toBe(false);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await expect.poll(async () => (await shown('video'))?.paused).toBe(true);

    // Going 5 s forward moves the video, as it moves a recording.
    const at = (await shown('video'))?.seconds ?? 0;
    await page.getByRole('button', { name: /seconds forward/ }).click();
    await expect
      .poll(async () => (await shown('video'))?.seconds ?? 0)
      .toBeGreaterThanOrEqual(Math.min(at + 4.9, (4 * SEGMENT_MS) / 1000 - 0.1));

    const axe = accessibilityChecks(page);
    await axe.check('video-note', false);
    expect(axe.findings['video-note']).toEqual([]);
  });

  it('keeps an audio note as a hidden audio element, with no picture', async () => {
    await open(audioNote);
    await expect
      .poll(async () => (await shown('audio'))?.ready ?? 0, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await shown('video')).toBeNull();
  });

  it('is created from a video file picked in the upload field, as the video type its extension says', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'notes-video-upload-'));
    const file = join(dir, 'phone.mov');
    await promisify(execFile)('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=5:d=3', '-f', 'lavfi', '-i', 'sine=d=3'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', file],
    ]);
    await page.goto(`${base}/#/`);
    const accept = (await page.locator('#upload-file').getAttribute('accept')) ?? '';
    for (const type of ['video/mp4', 'video/webm', 'video/quicktime']) expect(accept).toContain(type);
    await page.setInputFiles('#upload-file', file);
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    const noteId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    const note = await service.api('GET', `/v1/notes/${noteId}`);
    expect(note.body.audio).toMatchObject({ content_type: 'video/quicktime' });
    // The browser reads the picked file while it uploads: removed only once the note page is shown.
    await rm(dir, { recursive: true });
  });
});

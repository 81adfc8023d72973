import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotFailedSteps, signIn } from '../support/chromium.ts';
import { notAudioFixture, speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * Issue 23, build 4, as a person in Chromium: several recordings in one pick or one drop, each its
 * own note with its own progress and its own failure, filed in the collection being viewed.
 */
const TRANSCRIBED_MS = 240_000;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let scratch: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  [service] = await Promise.all([startInProcess(), speechFixture('slt', 'wav'), speechFixture('rms', 'mp3')]);
  base = service.runtime.apiUrl;
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  scratch = await mkdtemp(join(tmpdir(), 'notes-web-many-'));
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(base);
  await signIn(page, apiKey);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
}, 120_000);

screenshotFailedSteps('web-many', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Listed {
  note_id: string;
  title: string;
  transcription_status: string | null;
}

async function notesIn(collectionId?: string): Promise<Listed[]> {
  const listed = await service.api<{ notes: Listed[] }>(
    'GET',
    `/v1/notes?limit=100${collectionId ? `&collection_id=${collectionId}` : ''}`,
  );
  return listed.body.notes;
}

/** The list on the page shows the note, and it reaches Transcribed without a reload. */
async function listedUntilTranscribed(title: string): Promise<void> {
  const row = page.locator('.notes li', { hasText: title });
  await row.waitFor({ timeout: 60_000 });
  await row.locator('.badge.completed').waitFor({ timeout: TRANSCRIBED_MS });
}

describe('several recordings at once in the web app', () => {
  it('two files in one pick become two notes, each with its own line, both listed until transcribed', async () => {
    const slt = await speechFixture('slt', 'wav');
    const rms = await speechFixture('rms', 'mp3');
    await page.setInputFiles('#upload-file', [slt.file, rms.file]);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads.getByRole('link', { name: 'open its note' }).nth(1).waitFor({ timeout: 60_000 });
    expect(await uploads.locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^Uploaded slt-25s\.wav: open its note$/),
      expect.stringMatching(/^Uploaded rms-25s\.mp3: open its note$/),
    ]);
    // Still on the list page: several files do not navigate away.
    expect(new URL(page.url()).hash).toMatch(/^#\/?$|^$/);
    await listedUntilTranscribed('slt-25s');
    await listedUntilTranscribed('rms-25s');
    const notes = await notesIn();
    for (const title of ['slt-25s', 'rms-25s']) {
      expect(notes.filter((note) => note.title === title)).toEqual([
        expect.objectContaining({ transcription_status: 'completed' }),
      ]);
    }
  }, 300_000);

  it('three files dropped on a collection go into it; the one that is not audio fails on its own line', async () => {
    const created = await service.api<{ collection_id: string }>('POST', '/v1/collections', {
      body: { name: 'Week of meetings' },
    });
    expect(created.status).toBe(201);
    const collectionId = created.body.collection_id;
    await page.goto(`${base}/#/?collection=${collectionId}`);
    // The app read its collections before this one was made (through the API, not the app).
    await page.reload();
    await page.getByRole('heading', { name: 'New note in “Week of meetings”' }).waitFor();

    const slt = await speechFixture('slt', 'wav');
    const rms = await speechFixture('rms', 'mp3');
    const mondayFile = join(scratch, 'monday.wav');
    const tuesdayFile = join(scratch, 'tuesday.mp3');
    const notes = join(scratch, 'notes.txt');
    await copyFile(slt.file, mondayFile);
    await copyFile(rms.file, tuesdayFile);
    await copyFile(await notAudioFixture(), notes);
    const files = await Promise.all(
      [
        { path: mondayFile, type: 'audio/wav' },
        { path: notes, type: 'text/plain' },
        { path: tuesdayFile, type: 'audio/mpeg' },
      ].map(async ({ path, type }) => ({
        name: basename(path),
        type,
        base64: (await readFile(path)).toString('base64'),
      })),
    );
    // A real drop event carrying a DataTransfer with the three files, on the drop area.
    // (A string, because the tests are typed without the DOM library.)
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      for (const file of ${JSON.stringify(files)}) {
        const bytes = Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0));
        transfer.items.add(new File([bytes], file.name, { type: file.type }));
      }
      return transfer;
    })()`);
    await page.dispatchEvent('section.upload', 'dragover', { dataTransfer });
    await page.dispatchEvent('section.upload', 'drop', { dataTransfer });

    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads.getByRole('link', { name: 'open its note' }).nth(1).waitFor({ timeout: 60_000 });
    const lines = await uploads.locator('li').allTextContents();
    expect(lines).toEqual([
      'Uploaded monday.wav: open its note',
      'notes.txt is not a recording. Choose audio (WAV, MP3, M4A, AAC, OGG, Opus, WebM or FLAC) or a video (MP4, WebM, MOV or MKV).',
      'Uploaded tuesday.mp3: open its note',
    ]);
    // The file is named once.
    expect(lines[1]?.split('notes.txt').length).toBe(2);
    expect(await uploads.getByRole('alert').count()).toBe(1);

    await listedUntilTranscribed('monday');
    await listedUntilTranscribed('tuesday');
    const filed = await notesIn(collectionId);
    expect(filed.map((note) => note.title).sort()).toEqual(['monday', 'tuesday']);
    expect(filed.every((note) => note.transcription_status === 'completed')).toBe(true);
  }, 300_000);
});

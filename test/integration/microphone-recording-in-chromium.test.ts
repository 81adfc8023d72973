import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import {
  accessibilityChecks,
  fakeMicrophone,
  launchChromium,
  screenshotFailedSteps,
  signIn,
} from '../support/chromium.ts';
import { microphoneFixture } from '../support/fixtures.ts';
import { holdRequests } from '../support/held-requests.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * Issue 23, build 3, as a person in Chromium whose microphone (Chromium's fake capture device) says
 * a known sentence over and over: record with a pause, stop and save into the collection being
 * viewed (told in order: uploading, then queued; issue 39), and read what was said in the note's
 * transcript; a recording cut short by a closed page is
 * offered on the next visit; a blocked microphone is said plainly. NOTES_SCREENSHOTS_DIR=<dir> keeps
 * pictures of the recorder (desktop and 390 px wide, light and dark).
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;
const TRANSCRIBED_MS = 240_000;
/** The words of the sentence that carry its meaning (the recogniser may miss a few). */
const CONTENT_WORDS = 'record quarterly budget meeting marketing team tomorrow morning';
/** How long the recording stays paused: long enough that a file holding it would be clearly longer. */
const PAUSE_MS = 4000;

let service: InProcessService;
let base: string;
let apiKey: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Whether a tab has signed in with the key: the browser stays signed in after it (issue 35). */
let browserSignedIn = false;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  const [started, microphone] = await Promise.all([startInProcess(), microphoneFixture()]);
  service = started;
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  browser = await launchChromium(fakeMicrophone(microphone.file));
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await openSignedIn();
}, 120_000);

screenshotFailedSteps('microphone', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/**
 * A new tab of the same browser profile (its IndexedDB), signed in: its session is the tab's own.
 * The first signs in with the key; the browser then stays signed in (issue 35), so later tabs land
 * signed in by themselves.
 */
async function openSignedIn(): Promise<Page> {
  const opened = await context.newPage();
  await opened.goto(base);
  if (!browserSignedIn) await signIn(opened, apiKey);
  browserSignedIn = true;
  await opened.getByRole('heading', { name: 'Notes', level: 1 }).waitFor({ timeout: 20_000 });
  return opened;
}

/** With NOTES_SCREENSHOTS_DIR: the page as it is now, on a desktop and a phone, light and dark. */
async function pictures(of: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await mkdir(SCREENSHOTS, { recursive: true });
  for (const [width, size] of [
    [1280, 'desktop'],
    [390, 'phone'],
  ] as const) {
    await of.setViewportSize({ width, height: 900 });
    for (const scheme of ['light', 'dark'] as const) {
      await of.emulateMedia({ colorScheme: scheme });
      await of.screenshot({ path: join(SCREENSHOTS, `${name}-${size}-${scheme}.png`), fullPage: true });
    }
  }
  await of.setViewportSize({ width: 1280, height: 900 });
  await of.emulateMedia({ colorScheme: 'light' });
}

/** The recorder's elapsed time in seconds, as shown. */
async function shownSeconds(): Promise<number> {
  const text = (await page.getByRole('timer', { name: 'Time recorded' }).textContent()) ?? '';
  const [minutes = Number.NaN, seconds = Number.NaN] = text.trim().split(':').map(Number);
  return minutes * 60 + seconds;
}

async function recordUntil(seconds: number): Promise<void> {
  await expect
    .poll(shownSeconds, { timeout: (seconds + 20) * 1000, interval: 200 })
    .toBeGreaterThanOrEqual(seconds);
}

/** How far the level meter's bar reaches now (0 to 1). */
function meterReach(): Promise<number> {
  return page.evaluate(`(() => {
    const fill = document.querySelector('.level-fill');
    return fill ? fill.getBoundingClientRect().width / fill.parentElement.getBoundingClientRect().width : -1;
  })()`);
}

interface TranscriptionAnswer {
  status?: string;
  full_text?: string;
  duration_ms?: number;
}

async function transcribed(noteId: string): Promise<TranscriptionAnswer> {
  let answer: TranscriptionAnswer = {};
  await expect
    .poll(
      async () => {
        answer = (await service.api<TranscriptionAnswer>('GET', `/v1/notes/${noteId}/transcription`)).body;
        return answer.full_text !== undefined || answer.status === 'failed';
      },
      { timeout: TRANSCRIBED_MS, interval: 2000 },
    )
    .toBe(true);
  return answer;
}

function noteIdOf(url: string): string {
  const match = /#\/notes\/([0-9a-f-]{36})/.exec(url);
  if (!match?.[1]) throw new Error(`not a note page: ${url}`);
  return match[1];
}

describe('recording from the microphone in the web app', () => {
  it('records with a pause, shows time and level, saves into the collection in view saying uploading then queued, and the transcript has what was said', async () => {
    const created = await service.api<{ collection_id: string }>('POST', '/v1/collections', {
      body: { name: 'Voice memos' },
    });
    expect(created.status).toBe(201);
    const collectionId = created.body.collection_id;
    await page.goto(`${base}/#/?collection=${collectionId}`);
    await page.reload();
    await page.getByRole('heading', { name: 'New note in “Voice memos”' }).waitFor();

    await page.getByRole('button', { name: 'Record', exact: true }).click();
    const pause = page.getByRole('button', { name: 'Pause' });
    await pause.waitFor();
    // The focus moves from Record (gone) to the first control of the recording.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Pause');
    await expect.poll(() => page.locator('.recorder [role="status"]').textContent()).toBe('Recording');
    await recordUntil(3);
    // The meter moves with the voice: some frames reach well up the bar.
    await expect.poll(meterReach, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0.3);
    const axe = accessibilityChecks(page);
    await axe.check('recording', false);
    expect(axe.findings.recording).toEqual([]);
    await pictures(page, 'recording');

    const pausedAt = Date.now();
    await pause.click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await expect.poll(() => page.locator('.recorder [role="status"]').textContent()).toBe('Recording paused');
    const whilePaused = await shownSeconds();
    await page.waitForTimeout(PAUSE_MS);
    expect(await shownSeconds()).toBe(whilePaused);
    await pictures(page, 'recording-paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    const pausedMs = Date.now() - pausedAt;
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    // After resuming, a repeat of the sentence (6.3 s with its pause) is heard whole at least once.
    await recordUntil(whilePaused + 14);
    const recordedSeconds = await shownSeconds();

    // Everything the page says from here on: the recorder's line, the toast, the note's job status.
    await page.evaluate(`(() => {
      window.said = [];
      const note = () => {
        const now = ['.recorder-panel label', '.toast', '.job[role="status"]']
          .map((selector) => document.querySelector(selector)?.textContent?.trim() ?? '')
          .filter(Boolean);
        for (const text of now) if (window.said.at(-1) !== text && !window.said.includes(text)) window.said.push(text);
      };
      new MutationObserver(note).observe(document.body, { childList: true, characterData: true, subtree: true });
    })()`);
    // The service's answers on the new note's transcription held a moment: the recorder shows the
    // step after the upload (the recording is the service's; it is being queued).
    const queueReads = await holdRequests(
      page,
      (url) => /^\/v1\/notes\/[^/]+\/transcription$/.test(url.pathname),
      (request) => request.method() === 'GET',
    );
    try {
      await page.getByRole('button', { name: 'Stop and save' }).click();
      await page.getByText(/^Recording uploaded \(\d\d:\d\d\); queuing it for transcription…$/).waitFor();
      const queuing = accessibilityChecks(page);
      await queuing.check('recording-queuing', false);
      expect(queuing.findings['recording-queuing']).toEqual([]);
      await pictures(page, 'recording-queuing');
    } finally {
      await queueReads.end();
    }
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    const noteId = noteIdOf(page.url());
    await page.getByRole('heading', { name: 'Transcript' }).waitFor({ timeout: TRANSCRIBED_MS });
    // In the order it happens, never contradicting itself: this browser uploads, then the service
    // queues; no "waiting for the upload" once this browser has made it.
    const said = await page.evaluate<string[]>('window.said');
    expect(said.join('\n')).not.toMatch(/waiting for the upload/i);
    const uploading = said.findIndex((text) => text.startsWith('Uploading the recording'));
    const queuing = said.findIndex((text) =>
      /^Recording uploaded \(\d\d:\d\d\); queuing it for transcription…$/.test(text),
    );
    const told = said.indexOf('Recording uploaded and queued for transcription');
    expect(queuing).toBeGreaterThan(-1);
    expect(told).toBeGreaterThan(queuing);
    if (uploading > -1) expect(uploading).toBeLessThan(queuing);
    const answer = await transcribed(noteId);
    expect(answer.status).not.toBe('failed');
    expect(wordOverlap(CONTENT_WORDS, answer.full_text ?? '')).toBeGreaterThan(0.5);
    // Paused time is not in the file: the recording lasts what the clock showed, not the wall time.
    const durationSeconds = (answer.duration_ms ?? 0) / 1000;
    // (Stop is pressed a moment after the clock is read: up to a little over a second more.)
    expect(pausedMs).toBeGreaterThanOrEqual(PAUSE_MS);
    expect(durationSeconds).toBeGreaterThan(recordedSeconds - 1);
    expect(durationSeconds).toBeLessThan(recordedSeconds + PAUSE_MS / 1000 - 1.5);

    const note = await service.api<{ title: string }>('GET', `/v1/notes/${noteId}`);
    expect(note.body.title).toMatch(/^Recording \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
    const filed = await service.api<{ notes: { note_id: string }[] }>(
      'GET',
      `/v1/notes?collection_id=${collectionId}`,
    );
    expect(filed.body.notes.map((listed) => listed.note_id)).toEqual([noteId]);
    // The note page follows it, as it does an uploaded file.
    await page.getByRole('heading', { name: note.body.title }).waitFor();
  }, 360_000);

  it('goes on across pages and asks before the page closes; a recording cut short is offered on the next visit and saved', async () => {
    await page.goto(`${base}/#/`);
    await page.getByRole('button', { name: 'Record', exact: true }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await recordUntil(3);
    // Another page of the app: the recording goes on, shown in the header, which leads back to it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ask' }).click();
    const indicator = page.getByRole('link', { name: /^Recording \d\d:\d\d$/ });
    await indicator.waitFor();
    await pictures(page, 'recording-elsewhere');
    await indicator.click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    expect(await page.getByRole('link', { name: /^Recording \d\d:\d\d$/ }).count()).toBe(0);
    await recordUntil(14);

    // Closing asks first (beforeunload); staying keeps the recording going.
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      }),
    );
    await page.close({ runBeforeUnload: true });
    expect(await asked).toBe('beforeunload');
    expect(page.isClosed()).toBe(false);
    await recordUntil(15);
    // Then the tab goes without a word (a crash, a killed browser tab): what was kept survives it.
    await page.close();

    page = await openSignedIn();
    const offered = page.getByRole('region', { name: 'Recordings not saved yet' });
    await offered.waitFor({ timeout: 20_000 });
    const items = offered.getByRole('listitem');
    expect(await items.count()).toBe(1);
    expect(await items.first().textContent()).toMatch(
      /^Recording \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} \(00:1[45] recorded\)/,
    );
    const axe = accessibilityChecks(page);
    await axe.check('unfinished', false);
    expect(axe.findings.unfinished).toEqual([]);
    await pictures(page, 'recording-unfinished');

    await offered.getByRole('button', { name: 'Save as a note' }).click();
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    const answer = await transcribed(noteIdOf(page.url()));
    expect(answer.status).not.toBe('failed');
    expect(wordOverlap(CONTENT_WORDS, answer.full_text ?? '')).toBeGreaterThan(0.5);

    // Saved: no longer offered, in this tab or a new one.
    await page.goto(`${base}/#/`);
    await page.getByRole('heading', { name: 'New note' }).waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByRole('region', { name: 'Recordings not saved yet' }).count()).toBe(0);
  }, 360_000);

  it('keeps a recording whose upload failed, and Try again saves it as the same note', async () => {
    await page.goto(`${base}/#/`);
    const before = (await service.api<{ notes: { note_id: string }[] }>('GET', '/v1/notes?limit=100')).body
      .notes;
    // The first PUT of the recording's bytes to storage is cut off, as by a dropped connection.
    let refused = 0;
    await page.route('**/*', (route) => {
      if (route.request().method() === 'PUT' && refused === 0) {
        refused++;
        return route.abort('connectionreset');
      }
      return route.continue();
    });
    try {
      await page.getByRole('button', { name: 'Record', exact: true }).click();
      await page.getByRole('button', { name: 'Pause' }).waitFor();
      await recordUntil(3);
      await page.getByRole('button', { name: 'Stop and save' }).click();
      const alert = page.locator('.recorder').getByRole('alert');
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toMatch(
        /could not be saved: The upload was interrupted\..* It is kept in this browser/,
      );
      expect(refused).toBe(1);
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    } finally {
      await page.unroute('**/*');
    }
    const noteId = noteIdOf(page.url());
    const after = (await service.api<{ notes: { note_id: string }[] }>('GET', '/v1/notes?limit=100')).body
      .notes;
    // One new note: the second attempt filled the note the first one made.
    expect(
      after.filter((note) => !before.some((old) => old.note_id === note.note_id)).map((note) => note.note_id),
    ).toEqual([noteId]);
    await page.goto(`${base}/#/`);
    await page.getByRole('button', { name: 'Record', exact: true }).waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByRole('region', { name: 'Recordings not saved yet' }).count()).toBe(0);
  }, 120_000);

  it('discards only after asking, and a discarded recording is neither a note nor offered again', async () => {
    await page.goto(`${base}/#/`);
    const notesBefore = (await service.api<{ notes: unknown[] }>('GET', '/v1/notes?limit=100')).body.notes
      .length;
    await page.getByRole('button', { name: 'Record', exact: true }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await recordUntil(2);

    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    const question = page.getByRole('form', { name: 'Discard the recording?' });
    await question.waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Keep recording');
    await pictures(page, 'recording-discard');
    // Escape keeps it, still recording.
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Pause' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Discard', exact: true }).click();
    await question.getByRole('button', { name: 'Discard recording' }).click();
    await page.getByRole('button', { name: 'Record', exact: true }).waitFor();
    await expect
      .poll(() => page.locator('.recorder [role="status"]').textContent())
      .toBe('Recording discarded');
    await page.reload();
    await page.getByRole('button', { name: 'Record', exact: true }).waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByRole('region', { name: 'Recordings not saved yet' }).count()).toBe(0);
    const notesAfter = (await service.api<{ notes: unknown[] }>('GET', '/v1/notes?limit=100')).body.notes
      .length;
    expect(notesAfter).toBe(notesBefore);
  }, 120_000);

  it('says plainly when the microphone is blocked', async () => {
    // A browser without the switch that grants the microphone: the permission is refused.
    const strict = await launchChromium(['--use-fake-device-for-media-stream']);
    try {
      const strictContext = await strict.newContext();
      const blocked = await strictContext.newPage();
      await blocked.goto(base);
      await signIn(blocked, apiKey);
      await blocked.getByRole('button', { name: 'Record', exact: true }).click();
      const alert = blocked.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/^The microphone is blocked for this site\./);
      await pictures(blocked, 'recording-blocked');
      // Record is there to try again.
      expect(await blocked.getByRole('button', { name: 'Record', exact: true }).isEnabled()).toBe(true);
    } finally {
      await strict.close();
    }
  }, 120_000);
});

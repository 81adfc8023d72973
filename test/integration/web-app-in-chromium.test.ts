import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELD_OUT, realSpeechRecording } from '../fixtures/real-speech.ts';
import {
  accessibilityChecks,
  launchChromium,
  screenshotFailedSteps,
  signIn,
  visibleText,
} from '../support/chromium.ts';
import { notAudioFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { postMcpWithToken } from '../support/mcp-requests.ts';

/**
 * A person's day with the web app, in a real headless Chromium (Debian's package, driven by
 * playwright-core): sign in through the service's OAuth pages, upload a recording of real speech,
 * read, play, rename, correct, search, generate, ask, organise, trash, delete, manage keys, sign out.
 * Every page is checked with axe-core, and the Content-Security-Policy must never have refused
 * anything the app itself does. NOTES_SCREENSHOTS_DIR=<dir> keeps a screenshot of each main page
 * (docs/screenshots/ holds the committed ones).
 */
const TRANSCRIPTION_TIMEOUT_MS = 180_000;
const UNIQUE_WORD = 'zebracorn';
const COLLECTION = 'Reading group';
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;

let service: InProcessService;
let base: string;
let apiKey: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let noteId: string;
const refusedByPolicy: string[] = [];
let axe: ReturnType<typeof accessibilityChecks>;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess();
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  axe = accessibilityChecks(page, SCREENSHOTS);
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
  });
  if (SCREENSHOTS) await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

// What the page looked like when a step failed, for whoever reads the failure.
screenshotFailedSteps('web-app', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** axe-core's serious and critical findings on the page as it is now, with a screenshot when kept. */
function checkAccessibility(name: string, screenshot = true): Promise<void> {
  return axe.check(name, screenshot);
}

/* Code run in the page is written as strings: this file is compiled for Node, without the DOM's types. */
const RECORDING = `document.querySelector('audio[aria-label="Recording"]')`;

async function session(): Promise<{ access_token: string; refresh_token: string }> {
  return page.evaluate(`JSON.parse(sessionStorage.getItem('notes.session'))`);
}

function audioPosition(): Promise<{ seconds: number; paused: boolean }> {
  return page.evaluate(`({ seconds: ${RECORDING}.currentTime, paused: ${RECORDING}.paused })`);
}

function pauseRecording(): Promise<void> {
  return page.evaluate(`${RECORDING}.pause()`);
}

describe('the web app in Chromium', () => {
  it('signs in through the service’s own sign-in and consent pages, with no API key kept by the browser', async () => {
    await page.goto(base);
    await checkAccessibility('sign-in');
    // The app asks for every scope; permanent deletion is never ticked for the user.
    await signIn(page, apiKey, { allowDeletion: true });
    await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    const stored = await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })');
    expect(stored).not.toContain(apiKey);
    expect(stored).not.toContain('svc_sk_');
    await checkAccessibility('notes-empty');
  });

  it('uploads a recording with a progress bar, then follows the transcription to its transcript', async () => {
    const recording = await realSpeechRecording('held-out', HELD_OUT);
    // A slow uplink, so that the progress bar has time to move.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 150 * 1024,
    });
    await page.setInputFiles('#upload-file', recording.audio);
    const progress = page.locator('.file-uploads progress').first();
    await progress.waitFor();
    await expect
      .poll(() =>
        page.evaluate<boolean>(
          `(() => { const bar = document.querySelector('.file-uploads progress'); return bar !== null && bar.value > 0 && bar.value < bar.max; })()`,
        ),
      )
      .toBe(true);
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    noteId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    expect(noteId).toMatch(/^[0-9a-f-]{36}$/);
    // The job's stage shows while it works, in a status region.
    await page.locator('.job[role="status"]').waitFor({ timeout: 30_000 });
    await page.getByRole('heading', { name: 'Transcript' }).waitFor({ timeout: TRANSCRIPTION_TIMEOUT_MS });
    expect(await page.locator('.segment').count()).toBeGreaterThan(0);
    await checkAccessibility('note');
  });

  it('plays from a segment when its time is clicked, and highlights the segment playing', async () => {
    const segments = page.locator('.segment');
    const last = segments.nth((await segments.count()) - 1);
    await last.locator('button.time').click();
    await expect
      .poll(async () => {
        const { seconds, paused } = await audioPosition();
        return !paused && seconds > 0;
      })
      .toBe(true);
    const startMs = await last.getAttribute('data-start');
    expect((await audioPosition()).seconds).toBeGreaterThanOrEqual(Number(startMs) / 1000 - 0.05);
    await expect.poll(() => last.getAttribute('aria-current')).toBe('true');
    await pauseRecording();
  });

  it('renames a speaker in place', async () => {
    await page.locator('.transcript .section-head button', { hasText: 'Speaker 1' }).click();
    await page.getByLabel('New name for Speaker 1').fill('Elinor');
    await page.locator('.transcript').getByRole('button', { name: 'Rename', exact: true }).click();
    await expect.poll(() => page.locator('.segment .speaker').first().textContent()).toBe('Elinor');
  });

  it('works from the keyboard alone: skip to the content, tab to a segment, play it, open and leave its editor', async () => {
    // A fresh load, so that the first Tab starts at the top of the page.
    await page.goto(`${base}/#/notes/${noteId}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('main');
    const focusedClass = () => page.evaluate<string>('document.activeElement.className');
    // Each segment is one Tab stop; → reaches its "Play from" control.
    for (let step = 0; step < 60 && !(await focusedClass()).startsWith('segment'); step++)
      await page.keyboard.press('Tab');
    expect(await focusedClass()).toMatch(/^segment/);
    await page.keyboard.press('ArrowRight');
    expect(await focusedClass()).toContain('time');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await audioPosition()).paused).toBe(false);
    await pauseRecording();
    // Escape goes back to the segment, where Enter opens its words for correction.
    await page.keyboard.press('Escape');
    expect(await focusedClass()).toMatch(/^segment/);
    await page.keyboard.press('Enter');
    // Preact renders on the next tick: wait for the editor, then for it to go.
    await expect.poll(() => page.evaluate<string>('document.activeElement.tagName')).toBe('TEXTAREA');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.segment textarea').count()).toBe(0);
  });

  it('corrects a segment in place, finds the correction by search, and undoes it', async () => {
    const first = page.locator('.segment').first();
    // As seen: words the recogniser was unsure of also carry "(unsure)" for screen readers.
    const original = await visibleText(first.locator('.text'));
    // The words themselves open for correction on a double click (there is no button per segment).
    await first.locator('.text').dblclick();
    await first.locator('textarea').fill(`${original} ${UNIQUE_WORD}`);
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => visibleText(first.locator('.text'))).toBe(`${original} ${UNIQUE_WORD}`);

    await page.fill('#search-notes', UNIQUE_WORD);
    await page.press('#search-notes', 'Enter');
    const result = page.locator('.results > li').first();
    await result.waitFor();
    expect(await result.locator('mark').first().textContent()).toBe(UNIQUE_WORD);
    await checkAccessibility('search');
    await result.locator('a.title').click();
    await expect
      .poll(() => visibleText(page.locator('.segment').first().locator('.text')))
      .toBe(`${original} ${UNIQUE_WORD}`);

    const undone = page.waitForResponse((response) => response.url().endsWith('/transcription/undo'));
    await page.getByRole('button', { name: 'Undo last correction' }).click();
    expect((await undone).status()).toBe(200);
    await expect.poll(() => visibleText(page.locator('.segment').first().locator('.text'))).toBe(original);
  });

  it('downloads the transcript as SubRip', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'SubRip (.srt)' }).click();
    const file = await (await download).path();
    expect(await readFile(file, 'utf8')).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> /);
  });

  it('generates Insights, and a citation plays the moment it cites', async () => {
    await page.getByRole('button', { name: 'Generate insights' }).click();
    const insights = page.locator('.insights');
    await insights.waitFor({ timeout: 60_000 });
    const citation = insights.locator('a.citation').first();
    const cited = Number((await citation.getAttribute('href'))?.replace('#t=', ''));
    await checkAccessibility('note-with-insights');
    await citation.click();
    await expect
      .poll(async () => Math.round((await audioPosition()).seconds * 1000))
      .toBeGreaterThanOrEqual(cited);
    await pauseRecording();
    // Regenerating asks generateInsights again (it takes no options) and shows them again.
    const regenerated = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith('/insights'),
    );
    await page.getByRole('button', { name: 'Regenerate' }).first().click();
    expect((await regenerated).status()).toBe(202);
    await insights.waitFor({ timeout: 60_000 });
  });

  it('files the note in a new collection and lists it there', async () => {
    await page.goto(`${base}/#/`);
    await page.fill('#new-collection', COLLECTION);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: COLLECTION }).waitFor();
    await page.goto(`${base}/#/notes/${noteId}`);
    await page.selectOption('#file-into', { label: COLLECTION });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.locator('.filing .tags a', { hasText: COLLECTION }).click();
    await page.locator('.notes li').first().waitFor();
    expect(await page.locator('.notes li').count()).toBe(1);
    await checkAccessibility('collection');
  });

  it('reflows to a phone-sized screen and to 200 % zoom without sideways scrolling (WCAG 1.4.10)', async () => {
    // 320 CSS pixels is a 1280-pixel window at 400 % zoom; 640 is 200 %, and a phone in portrait.
    for (const width of [320, 640]) {
      await page.setViewportSize({ width, height: 800 });
      for (const route of [`#/notes/${noteId}`, '#/', '#/ask', '#/account', '#/trash']) {
        await page.goto(`${base}/${route}`);
        await page.locator('main h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow, `${route} at ${width}px`).toBeLessThanOrEqual(0);
      }
    }
    if (SCREENSHOTS) {
      // A phone in portrait, once the note, its recording and its Insights have loaded.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/#/notes/${noteId}`);
      await page.locator('.insights').waitFor();
      await page.locator('.player .play:not([disabled])').waitFor();
      await page.waitForLoadState('networkidle');
      // The toast of the step before has gone: the picture is of the page.
      await expect.poll(() => page.locator('.toast').textContent(), { timeout: 15_000 }).toBe('');
      await page.screenshot({ path: join(SCREENSHOTS, 'note-on-a-phone.png'), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('asks a question across the notes and opens the cited note at the cited moment', async () => {
    await page.goto(`${base}/#/ask`);
    const words = ((await service.api('GET', `/v1/notes/${noteId}/transcription`)).body.full_text as string)
      .split(' ')
      .slice(0, 6)
      .join(' ');
    await page.fill('#question', `What was said about ${words}?`);
    await page.selectOption('#ask-scope', { label: `Collection: ${COLLECTION}` });
    await page.getByRole('button', { name: 'Ask' }).click();
    const open = page.getByRole('link', { name: /^Open “.+” at / }).first();
    await open.waitFor({ timeout: 60_000 });
    await checkAccessibility('ask');
    await open.click();
    await page.waitForURL(new RegExp(`#/notes/${noteId}\\?t=\\d+`));
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
  });

  it('moves the note to the trash, restores it, then deletes it for good after typed confirmation', async () => {
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.locator('.badge', { hasText: 'In the trash' }).waitFor();
    await page.goto(`${base}/#/trash`);
    const row = page.locator('.notes li', { hasText: 'held-out' });
    await row.getByRole('button', { name: /Restore/ }).click();
    await row.waitFor({ state: 'detached' });
    await checkAccessibility('trash');

    await page.goto(`${base}/#/notes/${noteId}`);
    await page.getByRole('button', { name: 'Delete for good…' }).click();
    const confirm = page.getByRole('button', { name: 'Delete permanently' });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('Type delete to confirm').fill('delete');
    await confirm.click();
    await page.waitForURL(/#\/$/);
    expect((await service.api('GET', `/v1/notes/${noteId}`)).status).toBe(404);
  });

  it('says why a transcription failed', async () => {
    const broken = join(tmpdir(), 'not-a-recording.wav');
    await copyFile(await notAudioFixture(), broken);
    await page.goto(`${base}/#/`);
    await page.setInputFiles('#upload-file', broken);
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    const failure = page.locator('[role="alert"]', { hasText: 'The transcription failed' });
    await failure.waitFor({ timeout: 60_000 });
    expect(await failure.textContent()).toMatch(/failed: \S+/);
  });

  it('creates an API key shown once, which works until it is revoked', async () => {
    await page.goto(`${base}/#/account`);
    await page.locator('.keys li').first().waitFor();
    await checkAccessibility('account');
    await page.fill('#key-name', 'CLI on the laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('.secret').textContent()) ?? '';
    expect(secret).toMatch(/^svc_sk_/);
    const account = () => fetch(`${base}/v1/account`, { headers: { Authorization: `Bearer ${secret}` } });
    expect((await account()).status).toBe(200);
    // Checked with the secret on screen too, but not photographed: a key in a picture is still a key.
    await checkAccessibility('account-new-key', false);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.locator('.secret').count()).toBe(0);

    await page
      .locator('.keys li', { hasText: 'CLI on the laptop' })
      .getByRole('button', { name: /Revoke/ })
      .click();
    await page.getByLabel('Type delete to confirm').fill('delete');
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await page.locator('.keys li', { hasText: 'revoked' }).waitFor();
    expect((await account()).status).toBe(401);
  });

  it('holds a token for REST only: /mcp refuses it', async () => {
    const { access_token } = await session();
    expect(
      (await fetch(`${base}/v1/account`, { headers: { Authorization: `Bearer ${access_token}` } })).status,
    ).toBe(200);
    expect((await postMcpWithToken(`${base}/mcp`, access_token)).status).toBe(401);
  });

  it('signs out: the refresh token is revoked and the sign-in page shows', async () => {
    const { refresh_token } = await session();
    // The header's (the Account page's session list has a "Sign out: …" for this tab and browser too).
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token, client_id: 'notes-web' }),
    });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('creates an API key with the consent page’s defaults: making a key needs no permission to delete', async () => {
    // Signed in with the consent page's defaults: permanent deletion not given. The key holds what
    // the session holds (web-app-actions-in-chromium.test.ts asks for deletion in place).
    await signIn(page, apiKey);
    // Back where the user signed out from.
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    await page.fill('#key-name', 'Made without deletion');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.locator('.secret').textContent()).toMatch(/^svc_sk_/);
    expect(await page.locator('.permission').count()).toBe(0);
  });

  it('met no serious or critical accessibility finding on any page, and no Content-Security-Policy refusal', () => {
    expect(Object.keys(axe.findings).length).toBeGreaterThanOrEqual(8);
    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
    expect(refusedByPolicy).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import {
  type accessibilityChecks,
  screenshotFailedSteps,
  signedInPage,
  visibleText,
} from '../support/chromium.ts';
import { holdRequests } from '../support/held-requests.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { storeListenableNote } from '../support/listenable-note.ts';

/**
 * Details of the note page a person meets right after acting (issue 39, item 3), in a real headless
 * Chromium: Insights say at once that a correction made them outdated, and offer to regenerate; a
 * word a person corrected loses its "unsure" underline; a low-confidence transcript is explained in
 * the app's words; a file that is not a recording is named once; the rename field and "Saving…"
 * move nothing a person aims at; Tab reaches "Skip to transcript" before the Insights' citations.
 * Notes are seeded through the runtime's stores (timed words, every seventh word unsure, a tone as
 * the recording). Every state is checked with axe-core; NOTES_SCREENSHOTS_DIR=<dir> keeps each
 * changed view at desktop and phone widths.
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let axe: ReturnType<typeof accessibilityChecks>;
let noteId: string;
let guessedNote: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess();
  base = service.runtime.apiUrl;
  const account = String((await service.api('GET', '/v1/account')).body.account_id);
  noteId = randomUUID();
  guessedNote = randomUUID();
  await storeListenableNote(getServices(), account, { id: noteId, title: 'Design review', segments: 12 });
  await storeListenableNote(getServices(), account, {
    id: guessedNote,
    title: 'Noisy hallway',
    segments: 3,
    notice: 'low_confidence',
  });
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
}, 180_000);

screenshotFailedSteps('note-page-details', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function open(id: string): Promise<void> {
  await page.goto(`${base}/#/`);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
  await page.goto(`${base}/#/notes/${id}`);
  await page.getByRole('heading', { name: 'Transcript' }).waitFor();
}

/** With NOTES_SCREENSHOTS_DIR: the page as it is now, at desktop and phone widths. */
async function pictures(name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/** Where the transcript's first row is on the page (its top, in CSS pixels from the document's top). */
function firstRowTop(): Promise<number> {
  return page.evaluate<number>(
    `document.querySelector('#segment-0').getBoundingClientRect().top + window.scrollY`,
  );
}

const row = (index: number) => page.locator(`#segment-${index}`);
/** Per row, the words shown as unsure. */
const unsureShown = (index: number) =>
  page.evaluate<string[]>(
    `[...document.querySelectorAll('#segment-${index} .text .unsure')].map((word) => word.firstChild.textContent)`,
  );
interface ApiSegment {
  text: string;
  words: Array<{ text: string; confidence: number | null }>;
}

async function segments(): Promise<ApiSegment[]> {
  const answer = await service.api('GET', `/v1/notes/${noteId}/transcription`);
  return answer.body.conversation_segments as unknown as ApiSegment[];
}

/** The word with its first letter's case turned ("budget" → "Budget", "We" → "we"). */
function otherCase(word: string): string {
  const first = word[0] ?? '';
  const turned = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return turned + word.slice(1);
}

const lastAnnouncement = async () => (await page.locator('.toast').textContent()) ?? '';
const status = () => page.locator('.transcript .corrections-line [role="status"]');

/** Insights of the note, made by the local engine (quotes with their times: about 20 citation links). */
async function generateInsights(): Promise<void> {
  expect((await service.api('POST', `/v1/notes/${noteId}/insights`, {})).status).toBe(202);
  await expect
    .poll(async () => (await service.api('GET', `/v1/notes/${noteId}/insights`)).status, { timeout: 90_000 })
    .toBe(200);
}

/** Corrects a segment's words from the keyboard (Enter on the row, the new text, Enter). */
async function correct(index: number, text: string): Promise<void> {
  await row(index).focus();
  await page.keyboard.press('Enter');
  await row(index).locator('textarea').fill(text);
  const saved = page.waitForResponse((response) => response.url().endsWith('/transcription/edits'));
  await page.keyboard.press('Enter');
  expect((await saved).status()).toBe(200);
}

describe('the note page right after a person acts, in Chromium', () => {
  it('says right after a correction, without reopening the note, that the Insights were made before it, and regenerates them with it', {
    timeout: 120_000,
  }, async () => {
    await generateInsights();
    await open(noteId);
    const insights = page.locator('#panel-insights');
    await insights.locator('.insights > p').first().waitFor();
    expect(await insights.locator('.notice').count()).toBe(0);
    // The page is never reloaded: a mark left on it stays.
    await page.evaluate('window.stillTheSamePage = true');

    const original = await visibleText(row(0).locator('.text'));
    await correct(0, `${original} zebracorn`);
    const notice = insights.locator('.notice');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toContain('before your latest correction');
    const regenerate = insights.getByRole('button', { name: 'Regenerate with the corrections' });
    expect(await regenerate.isVisible()).toBe(true);
    expect(await page.evaluate<boolean>('window.stillTheSamePage === true')).toBe(true);
    await axe.check('insights-outdated-after-correction', false);
    await pictures('insights-outdated-after-correction');

    await regenerate.click();
    await expect.poll(() => notice.count(), { timeout: 90_000 }).toBe(0);
    await insights.getByRole('button', { name: 'Regenerate', exact: true }).waitFor({ timeout: 90_000 });
    expect((await service.api('GET', `/v1/notes/${noteId}/insights`)).body.outdated).toBe(false);
  });

  it('takes the unsure underline off a word a person corrected, even by its case alone, and keeps it on the words not corrected', async () => {
    await open(noteId);
    const index = 2;
    const segment = (await segments())[index];
    if (!segment) throw new Error('no segment 2');
    const tokens = segment.text.split(' ');
    const unsure = segment.words.flatMap((word, i) => ((word.confidence ?? 1) < 0.5 ? [i] : []));
    expect(unsure.length).toBe(2);
    const [corrected = 0, untouched = 0] = unsure;
    expect(await unsureShown(index)).toEqual([tokens[corrected], tokens[untouched]]);
    // The person corrects the case of the first unsure word: the word is theirs now.
    const fixed = tokens.map((token, i) => (i === corrected ? otherCase(token) : token));
    await correct(index, fixed.join(' '));
    await expect.poll(() => visibleText(row(index).locator('.text'))).toBe(fixed.join(' '));
    expect(await unsureShown(index)).toEqual([tokens[untouched]]);
    // And replaces the other with another word.
    const replaced = fixed.map((token, i) => (i === untouched ? 'zebracorn' : token));
    await correct(index, replaced.join(' '));
    await expect.poll(() => unsureShown(index)).toEqual([]);
    // Other segments keep theirs.
    expect((await unsureShown(index + 1)).length).toBe(2);
    await axe.check('corrected-words-certain', false);
    await pictures('corrected-words-certain');
  });

  it('explains a low-confidence transcript in the app’s words, with what the person can do here, and no operator setting or API operation', async () => {
    const stored = await service.api('GET', `/v1/notes/${guessedNote}/transcription`);
    expect((stored.body.notice as { code: string }).code).toBe('low_confidence');
    await open(guessedNote);
    const notice = (await page.locator('#transcript-notice').textContent()) ?? '';
    expect(notice).toMatch(/^The recogniser could not follow this recording \(confidence \d+ %\), so most/);
    expect(notice).toContain('Click a word to hear that moment; Edit on a segment');
    expect(notice).not.toMatch(/NOTES_|=|deleteTranscription|submitTranscription|engine/);
    // The Edit it names is there.
    await row(0).hover();
    expect(await row(0).getByRole('button', { name: /^Edit/ }).isVisible()).toBe(true);
    await axe.check('low-confidence-notice', false);
    await pictures('low-confidence-notice');
  });

  it('names a file that is not a recording once, and says what to choose instead', async () => {
    await page.goto(`${base}/#/`);
    await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    await page.setInputFiles('#upload-file', {
      name: 'minutes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Minutes of the design review.'),
    });
    const refusal = page.getByRole('list', { name: 'Uploads' }).getByRole('alert');
    await refusal.waitFor();
    const said = (await refusal.textContent()) ?? '';
    expect(said).toBe(
      'minutes.txt is not a recording. Choose audio (WAV, MP3, M4A, AAC, OGG, Opus, WebM or FLAC) or a video (MP4, WebM, MOV or MKV).',
    );
    expect(said.split('minutes.txt').length).toBe(2);
    await axe.check('upload-not-a-recording', false);
    await pictures('upload-not-a-recording');
  });

  it('opens the rename field and says what is being saved without moving the transcript, so a double click aimed at a word lands on it', async () => {
    await open(noteId);
    const top = await firstRowTop();
    const speaker = page.locator('.transcript .section-head button[data-speaker-label="Speaker 1"]');
    await speaker.click();
    const field = page.getByLabel('New name for Speaker 1');
    await field.waitFor();
    expect(await firstRowTop()).toBe(top);
    await axe.check('rename-open', false);
    await pictures('rename-open');

    const renames = await holdRequests(
      page,
      (url) => url.pathname === `/v1/notes/${noteId}`,
      (request) => request.method() === 'PATCH',
    );
    try {
      await field.fill('Chair');
      await page.locator('.transcript').getByRole('button', { name: 'Rename', exact: true }).click();
      // Said on the button pressed, in the field that lies over the status line, and in the status line.
      await page.locator('.transcript').getByRole('button', { name: 'Renaming…' }).waitFor();
      expect(await status().textContent()).toBe('Renaming Speaker 1…');
      expect(await firstRowTop()).toBe(top);
      await axe.check('rename-saving', false);
      await pictures('rename-saving');
    } finally {
      await renames.end();
    }
    await expect.poll(lastAnnouncement).toBe('Speaker 1 is now Chair');
    await expect.poll(() => status().textContent()).toBe('');
    expect(await firstRowTop()).toBe(top);

    // A correction being saved, on another row: the first row stays where it was too.
    const edits = await holdRequests(page, (url) => url.pathname.endsWith('/transcription/edits'));
    try {
      await row(3).focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('End');
      await page.keyboard.type(' zebracorn');
      await page.keyboard.press('Enter');
      await expect.poll(() => status().textContent()).toMatch(/^Saving the correction at \d+:\d\d…$/);
      expect(await firstRowTop()).toBe(top);
    } finally {
      await edits.end();
    }
    await expect.poll(() => status().textContent()).toBe('');

    // As the review scripted it: a double click 0.1 s after a rename lands where it was aimed.
    const words = await row(0).locator('.text').boundingBox();
    if (!words) throw new Error('the first row has no words on screen');
    await speaker.click();
    await page.getByLabel('New name for Chair').fill('Host');
    const renamed = page.waitForResponse(
      (response) => response.url().endsWith(`/v1/notes/${noteId}`) && response.request().method() === 'PATCH',
    );
    await page.locator('.transcript').getByRole('button', { name: 'Rename', exact: true }).click();
    await renamed;
    await page.waitForTimeout(100);
    await page.mouse.dblclick(words.x + 20, words.y + words.height / 2);
    await row(0).locator('textarea').waitFor();
    expect(await page.evaluate<string>('document.activeElement.closest(".segment")?.id ?? ""')).toBe(
      'segment-0',
    );
    await page.keyboard.press('Escape');

    // On a phone too: the field opens over the transcript, not above it.
    await page.setViewportSize(PHONE);
    const phoneTop = await firstRowTop();
    await speaker.click();
    await page.getByLabel('New name for Host').waitFor();
    expect(await firstRowTop()).toBe(phoneTop);
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await axe.check('rename-open-phone', false);
    if (SCREENSHOTS) {
      await page.locator('#transcript-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'rename-open-in-a-phone-window.png') });
    }
    await page.keyboard.press('Escape');
    await page.setViewportSize(DESKTOP);
  });

  it('lets Tab reach “Skip to transcript” before the Insights’ citations, and takes the focus to the transcript', {
    timeout: 120_000,
  }, async () => {
    if ((await service.api('GET', `/v1/notes/${noteId}/insights`)).status !== 200) await generateInsights();
    await open(noteId);
    await page.locator('#panel-insights .insights .citation').first().waitFor();
    const focused = () =>
      page.evaluate<{ text: string; id: string; inTranscript: boolean }>(`(() => {
        const element = document.activeElement;
        return {
          text: element?.textContent?.trim() ?? '',
          id: element?.id ?? '',
          inTranscript: Boolean(element?.closest('.transcript')),
        };
      })()`);
    // From the first thing on the page (the app's own skip link), as a keyboard user arrives.
    await page.getByRole('button', { name: 'Skip to content' }).focus();
    let presses = 0;
    while ((await focused()).text !== 'Skip to transcript' && presses < 40) {
      await page.keyboard.press('Tab');
      presses += 1;
    }
    expect((await focused()).text).toBe('Skip to transcript');
    expect(presses).toBeLessThanOrEqual(12);
    const skip = page.getByRole('button', { name: 'Skip to transcript' });
    expect(await skip.isVisible()).toBe(true);
    await axe.check('skip-to-transcript-focused', false);
    await pictures('skip-to-transcript-focused');

    // Without it, Tab would go through the player, the tabs and every citation first.
    let without = 0;
    while (!(await focused()).inTranscript && without < 200) {
      await page.keyboard.press('Tab');
      without += 1;
    }
    const citations = await page.locator('#panel-insights .citation').count();
    expect(citations).toBeGreaterThanOrEqual(10);
    expect(without).toBeGreaterThan(citations);

    await skip.focus();
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('transcript-title');
    const heading = await page.locator('#transcript-title').boundingBox();
    const player = await page.locator('.player').boundingBox();
    // In view, below the player kept at the top.
    expect(heading?.y ?? 0).toBeGreaterThanOrEqual((player?.y ?? 0) + (player?.height ?? 0) - 1);
    await page.keyboard.press('Tab');
    expect((await focused()).inTranscript).toBe(true);
  });

  it('met no serious or critical accessibility finding in any of these states', () => {
    expect(Object.keys(axe.findings).length).toBeGreaterThanOrEqual(7);
    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
  });
});

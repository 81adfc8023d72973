import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncNoteIndex } from '../../src/domain/note-index.ts';
import { getServices } from '../../src/wiring/services.ts';
import { launchChromium, screenshotFailedSteps, signIn } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';

/**
 * The Ask thread as a person keeps it (review of issue 22, findings 4 and 5): it survives opening a
 * citation and pressing Back, the citation opens the quoted sentence at its known time (one word per
 * 400 ms in the stored transcript), and the answer names that same time, its first quote's, written as
 * the link writes it (issue 39); signing out forgets it.
 */
const TITLE = 'Lighthouse maintenance';
const FIRST = 'Good morning everyone and welcome to the weekly call.';
const QUOTED = 'The keeper fixed the lantern.';
/** Quoted second: longer, so it shares more words with the answer than the first quote does. */
const ALSO_QUOTED = 'The keeper repaired the lantern and painted the whole tower before the storm arrived.';
/** The first quoted sentence starts at its first word: word index 9 at 400 ms each. */
const QUOTED_MS = FIRST.split(' ').length * 400;
const ALSO_QUOTED_MS = QUOTED_MS + QUOTED.split(' ').length * 400;

let service: InProcessService;
let base: string;
let apiKey: string;
let browser: Browser;
let page: Page;
let noteId: string;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  const accountId = String((await service.api('GET', '/v1/account')).body.account_id);
  noteId = randomUUID();
  const services = getServices();
  await storeTranscribedNote(services, accountId, {
    id: noteId,
    title: TITLE,
    text: `${FIRST} ${QUOTED} ${ALSO_QUOTED}`,
  });
  await syncNoteIndex(services, accountId, noteId);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(base);
  await signIn(page, apiKey);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
}, 120_000);

screenshotFailedSteps('ask-thread', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function askAbout(question: string, by: 'button' | 'enter' = 'button'): Promise<void> {
  const before = await page.locator('.thread .exchange').count();
  await page.fill('#question', question);
  if (by === 'enter') await page.press('#question', 'Enter');
  else await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect.poll(() => page.locator('.thread .exchange').count(), { timeout: 30_000 }).toBe(before + 1);
}

describe('the Ask thread of a visit', () => {
  it('opens the first quoted sentence at its known time, and the answer names that time as the link does', async () => {
    await page.goto(`${base}/#/ask`);
    await askAbout('Who fixed and repaired the lantern before the storm?');
    const answer = (await page.locator('.thread .answer > p').first().textContent()) ?? '';
    // Both sentences are quoted, the shorter first: the answer's time is the first quote's.
    expect(answer.indexOf(QUOTED)).toBeGreaterThan(-1);
    expect(answer.indexOf(ALSO_QUOTED.slice(0, 30))).toBeGreaterThan(answer.indexOf(QUOTED));
    expect(answer).toContain(`(0:0${Math.floor(QUOTED_MS / 1000)})`);
    expect(answer).not.toContain(`0:0${Math.floor(ALSO_QUOTED_MS / 1000)}`);
    // Written as the link writes it (m:ss), never hh:mm:ss beside it.
    expect(answer).not.toMatch(/\d\d:\d\d:\d\d/);
    const link = page.getByRole('link', { name: `Open “${TITLE}” at` }).first();
    expect(await link.textContent()).toBe(`Open “${TITLE}” at 0:0${Math.floor(QUOTED_MS / 1000)}`);
    await link.click();
    await page.waitForURL(new RegExp(`#/notes/${noteId}\\?t=${QUOTED_MS}$`));
  });

  it('is still there after opening a citation and pressing Back, and takes a follow-up', async () => {
    await page.goBack();
    await page.getByRole('heading', { name: 'Ask your notes', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.thread .exchange').count()).toBe(1);
    expect(await page.locator('.thread .question').first().textContent()).toContain(
      'Who fixed and repaired the lantern',
    );
    // As in a chat: Shift+Enter is a new line of the question, Enter asks it.
    await page.fill('#question', 'When was');
    await page.press('#question', 'Shift+Enter');
    expect(await page.inputValue('#question')).toBe('When was\n');
    expect(await page.locator('.thread .exchange').count()).toBe(1);
    await askAbout('When was the lantern repaired?', 'enter');
    const questions = await page.locator('.thread .question').allTextContents();
    expect(questions).toHaveLength(2);
    // Another page and back again: both stay.
    await page.goto(`${base}/#/`);
    await page.goto(`${base}/#/ask`);
    await expect.poll(() => page.locator('.thread .exchange').count()).toBe(2);
  });

  it('is forgotten at sign-out: the next session of the tab starts with an empty thread', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const kept = await page.evaluate<string[]>(`Object.keys(sessionStorage)`);
    expect(kept.filter((key) => key.includes('ask-thread'))).toEqual([]);
    await signIn(page, apiKey);
    await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    await page.goto(`${base}/#/ask`);
    await page.getByRole('heading', { name: 'Ask your notes', level: 1 }).waitFor();
    expect(await page.locator('.thread .exchange').count()).toBe(0);
  });
});

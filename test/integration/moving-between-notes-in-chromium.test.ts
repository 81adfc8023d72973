import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import { storeUntranscribedBrowserRecording } from '../support/browser-recording.ts';
import { type accessibilityChecks, screenshotFailedSteps, signedInPage } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { SEGMENT_MS, storeListenableNote } from '../support/listenable-note.ts';

/**
 * Issue 39, item 2, as a person in a real headless Chromium: each note page starts from its own
 * state. Note A is played, scrolled, a correction typed, the rename form and another tab opened; then
 * note B is opened from a link, reached again by Back and Forward, and by a deep link to a moment
 * (`?t=`, in milliseconds, as the app's own links are). B shows what it shows when opened from the
 * list: its own start and length, its first segment, the top of the page, nothing open, and the
 * keys go on from B's own position. A browser recording not transcribed yet (a WebM with no duration
 * in its header) shows its real length. The workers are off: nothing is transcribed meanwhile.
 * Every state is checked with axe-core; NOTES_SCREENSHOTS_DIR=<dir> keeps pictures of them.
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;
/** About 3:40: longer than a screen, so it scrolls. */
const A_SEGMENTS = 40;
/** About 0:33: shorter than where A is played to. */
const B_SEGMENTS = 6;
const RECORDED_SECONDS = 12;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let axe: ReturnType<typeof accessibilityChecks>;
const noteA = randomUUID();
const noteB = randomUUID();
const recorded = randomUUID();

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  const account = String((await service.api('GET', '/v1/account')).body.account_id);
  await storeListenableNote(getServices(), account, {
    id: noteA,
    title: 'Board meeting',
    segments: A_SEGMENTS,
  });
  await storeListenableNote(getServices(), account, {
    id: noteB,
    title: 'Coffee chat',
    segments: B_SEGMENTS,
  });
  await storeUntranscribedBrowserRecording(getServices(), account, {
    id: recorded,
    title: 'Recorded in the browser',
    seconds: RECORDED_SECONDS,
  });
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
}, 180_000);

screenshotFailedSteps('moving-between-notes', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/* Code run in the page is written as strings: this file is compiled for Node, without the DOM's types. */
const RECORDING = `document.querySelector('audio[aria-label="Recording"]')`;

/** What a person sees and meets on a note page, and where its recording is. */
interface NotePageState {
  heading: string;
  timeShown: string;
  seconds: number;
  paused: boolean;
  playing: string[];
  scrollY: number;
  renameForm: boolean;
  tab: string;
  editors: number;
}

function pageState(): Promise<NotePageState> {
  return page.evaluate(`({
    heading: document.querySelector('h1')?.textContent ?? '',
    timeShown: document.querySelector('.time-shown').textContent,
    seconds: ${RECORDING}.currentTime,
    paused: ${RECORDING}.paused,
    playing: [...document.querySelectorAll('.segment.playing, .segment[aria-current="true"]')].map((row) => row.id),
    scrollY: window.scrollY,
    renameForm: document.querySelector('#note-title-input') !== null,
    tab: document.querySelector('[role="tab"][aria-selected="true"]').textContent,
    editors: document.querySelectorAll('.segment textarea').length,
  })`);
}

async function seconds(): Promise<number> {
  return page.evaluate<number>(`${RECORDING}.currentTime`);
}

/** The note's page shown, its recording able to play (a fresh page's position is then settled). */
async function shown(title: string): Promise<void> {
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Transcript' }).waitFor();
  await expect
    .poll(() => page.evaluate<number>(`${RECORDING}?.readyState ?? 0`), { timeout: 20_000 })
    .toBeGreaterThanOrEqual(1);
  const slider = page.getByRole('slider', { name: 'Position in the recording' });
  await expect.poll(() => slider.isEnabled(), { timeout: 20_000 }).toBe(true);
}

/** A note opened from the notes list, as a person first opens it: the state every visit starts from. */
async function fromTheList(title: string): Promise<NotePageState> {
  await page.goto(`${base}/#/`);
  await page.getByRole('link', { name: title }).click();
  await shown(title);
  return pageState();
}

/** A link to a note followed from the page (one in a message, say: the same change of address). */
async function followLink(noteId: string, title: string): Promise<void> {
  await page.evaluate(`(() => {
    const link = document.createElement('a');
    link.id = 'link-elsewhere';
    link.href = '#/notes/${noteId}';
    link.textContent = ${JSON.stringify(title)};
    document.body.append(link);
  })()`);
  await page.click('#link-elsewhere');
  await page.evaluate(`document.getElementById('link-elsewhere').remove()`);
}

/** Leaves note A as a person might: played to near a minute in, scrolled, things opened and typed. */
async function useNoteA(): Promise<void> {
  await page.getByRole('tab', { name: 'Podcast' }).click();
  const row = page.locator('#segment-3');
  await row.focus();
  await page.keyboard.press('Enter');
  await page.keyboard.type(' half typed');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await page.keyboard.type(' (draft)');
  const from = 10 * SEGMENT_MS;
  await page.getByRole('button', { name: `Play from ${clockOf(from)}` }).click();
  await expect.poll(seconds, { timeout: 15_000 }).toBeGreaterThan(from / 1000 + 0.5);
  await page.keyboard.press('k');
  await expect.poll(() => page.evaluate<boolean>(`${RECORDING}.paused`)).toBe(true);
  await page.evaluate('window.scrollBy(0, 600)');
  const used = await pageState();
  expect(used.renameForm).toBe(true);
  expect(used.editors).toBe(1);
  expect(used.tab).toBe('Podcast');
  expect(used.playing).toEqual(['segment-10']);
  expect(used.scrollY).toBeGreaterThan(300);
  expect(used.timeShown).toMatch(/^0:5\d \/ 3:40$/);
}

/** J, L and the arrows go 5 s back and on from where this note is, never past its end. */
async function keysSeekFrom(start: number, durationMs: number): Promise<void> {
  // Focus on the page itself, not in a field.
  await page.locator('#transcript-title').click();
  await page.keyboard.press('l');
  await expect.poll(seconds).toBeCloseTo(start + 5, 0);
  await page.keyboard.press('ArrowRight');
  await expect.poll(seconds).toBeCloseTo(start + 10, 0);
  expect(await page.locator('.time-shown').textContent()).toBe(
    `${clockOf((start + 10) * 1000)} / ${clockOf(durationMs)}`,
  );
  await page.keyboard.press('j');
  await expect.poll(seconds).toBeCloseTo(start + 5, 0);
  await page.keyboard.press('ArrowLeft');
  await expect.poll(seconds).toBeCloseTo(start, 0);
}

describe('each note page starts from its own state, in Chromium', () => {
  it('opens note B from a link on a played, scrolled note A as it opens from the list, and the keys seek from B’s start', async () => {
    const fresh = await fromTheList('Coffee chat');
    expect(fresh).toMatchObject({ timeShown: `0:00 / ${clockOf(B_SEGMENTS * SEGMENT_MS)}`, seconds: 0 });
    expect(fresh.playing.filter((id) => id !== 'segment-0')).toEqual([]);
    await fromTheList('Board meeting');
    await useNoteA();

    await followLink(noteB, 'Coffee chat');
    await shown('Coffee chat');
    expect(await pageState()).toEqual(fresh);
    await axe.check('note-b-after-a-link');
    await keysSeekFrom(0, B_SEGMENTS * SEGMENT_MS);
  });

  it('starts each note afresh on Back to A and Forward to B', async () => {
    const freshA = await fromTheList('Board meeting');
    const freshB = await fromTheList('Coffee chat');
    await fromTheList('Board meeting');
    await useNoteA();
    await followLink(noteB, 'Coffee chat');
    await shown('Coffee chat');
    await page.locator('#transcript-title').click();
    await page.keyboard.press('l');
    await expect.poll(seconds).toBeCloseTo(5, 0);

    await page.goBack();
    await shown('Board meeting');
    expect(await pageState()).toEqual(freshA);
    await axe.check('note-a-after-back');
    await keysSeekFrom(0, A_SEGMENTS * SEGMENT_MS);

    await page.goForward();
    await shown('Coffee chat');
    expect(await pageState()).toEqual(freshB);
    await axe.check('note-b-after-forward');
    await keysSeekFrom(0, B_SEGMENTS * SEGMENT_MS);
  });

  it('opens B by a deep link to 0:05 from a played note A, at 0:05 of B', async () => {
    await fromTheList('Board meeting');
    await useNoteA();
    await page.goto(`${base}/#/notes/${noteB}?t=5000`);
    await shown('Coffee chat');
    await expect.poll(seconds).toBeCloseTo(5, 1);
    const state = await pageState();
    expect(state).toMatchObject({
      timeShown: `0:05 / ${clockOf(B_SEGMENTS * SEGMENT_MS)}`,
      paused: true,
      playing: ['segment-0'],
      renameForm: false,
      tab: 'Summary',
      editors: 0,
    });
    await axe.check('note-b-deep-link');
    await keysSeekFrom(5, B_SEGMENTS * SEGMENT_MS);
  });

  it('shows a browser recording not transcribed yet with its real length, found by the player, from its start', async () => {
    await fromTheList('Board meeting');
    await useNoteA();
    await followLink(recorded, 'Recorded in the browser');
    await page.getByRole('heading', { name: 'Recorded in the browser', level: 1 }).waitFor();
    const time = page.locator('.time-shown');
    await expect
      .poll(() => time.textContent(), { timeout: 20_000 })
      .toBe(`0:00 / ${clockOf(RECORDED_SECONDS * 1000)}`);
    expect(await seconds()).toBe(0);
    expect(await page.evaluate<number>(`${RECORDING}.duration`)).toBeCloseTo(RECORDED_SECONDS, 0);
    await axe.check('recording-not-transcribed');
    await page.keyboard.press('l');
    await expect.poll(seconds).toBeCloseTo(5, 0);
    expect(await time.textContent()).toBe(`0:05 / ${clockOf(RECORDED_SECONDS * 1000)}`);
  });

  it('met no serious or critical accessibility finding in any of these states', () => {
    expect(Object.keys(axe.findings).length).toBe(5);
    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
  });
});

/** `0:42` or `1:02:03`, as the app shows a time. */
function clockOf(ms: number): string {
  const total = Math.floor(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

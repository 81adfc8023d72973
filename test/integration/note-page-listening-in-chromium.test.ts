import { randomUUID } from 'node:crypto';
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
import { SEGMENT_MS, storeListenableNote } from '../support/listenable-note.ts';

/**
 * The note page as a person listening to a recording uses it, in a real headless Chromium: the player
 * stays in view and answers the keys people know from video players, the transcript follows playback
 * until the person scrolls away and brings them back, a click on a word plays from it, a moment asked
 * for before the recording is ready plays once it is, the summary and chapters sit beside the
 * transcript, a segment is corrected in place, and trash is undone from the toast. The notes are
 * seeded through the runtime's stores (timed words, two speakers, a tone as the recording) and read
 * through the real local API. Every state is checked with axe-core.
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;
const SHORT_SEGMENTS = 12;
/** About 37 minutes: far longer than a screen, as a meeting is. */
const LONG_SEGMENTS = 400;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let shortNote: string;
let longNote: string;
let axe: ReturnType<typeof accessibilityChecks>;

interface ApiSegment {
  start_ms: number;
  end_ms: number;
  text: string;
  words: Array<{ text: string; start_ms: number; end_ms: number }>;
}

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess();
  base = service.runtime.apiUrl;
  const account = String((await service.api('GET', '/v1/account')).body.account_id);
  shortNote = randomUUID();
  longNote = randomUUID();
  await storeListenableNote(getServices(), account, {
    id: shortNote,
    title: 'Weekly planning',
    segments: SHORT_SEGMENTS,
  });
  await storeListenableNote(getServices(), account, {
    id: longNote,
    title: 'Quarterly review',
    segments: LONG_SEGMENTS,
  });
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
}, 180_000);

screenshotFailedSteps('note-page', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/* Code run in the page is written as strings: this file is compiled for Node, without the DOM's types. */
const RECORDING = `document.querySelector('audio[aria-label="Recording"]')`;

function recording(): Promise<{ seconds: number; paused: boolean; ready: number }> {
  return page.evaluate(
    `({ seconds: ${RECORDING}.currentTime, paused: ${RECORDING}.paused, ready: ${RECORDING}.readyState })`,
  );
}

async function open(noteId: string): Promise<void> {
  await page.goto(`${base}/#/`);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
  await page.goto(`${base}/#/notes/${noteId}`);
  await page.getByRole('heading', { name: 'Transcript' }).waitFor();
}

async function recordingReady(): Promise<void> {
  await expect.poll(async () => (await recording()).ready, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
}

async function segments(noteId: string): Promise<ApiSegment[]> {
  const answer = await service.api('GET', `/v1/notes/${noteId}/transcription`);
  return answer.body.conversation_segments as unknown as ApiSegment[];
}

/** Whether an element is wholly in the viewport, below the player kept at the top. */
function inView(selector: string): Promise<boolean> {
  return page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    if (!element) return false;
    const box = element.getBoundingClientRect();
    const top = document.querySelector('.player').getBoundingClientRect().bottom;
    return box.top >= top - 1 && box.bottom <= window.innerHeight + 1;
  })()`);
}

/** Where a word of a segment's text is on screen, found as a person's eye finds it (what is seen). */
function wordCentre(segment: number, word: number): Promise<{ x: number; y: number }> {
  return page.evaluate(`(() => {
    const text = document.querySelector('#segment-${segment} .text');
    const seen = [];
    const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (!node.parentElement.closest('.visually-hidden')) seen.push(node);
    const content = seen.map((node) => node.textContent).join('');
    let start = 0;
    for (let i = 0; i < ${word}; i++) start = content.indexOf(' ', start) + 1;
    const space = content.indexOf(' ', start);
    const end = space === -1 ? content.length : space;
    let offset = 0;
    for (const node of seen) {
      const length = node.textContent.length;
      if (start < offset + length) {
        const range = document.createRange();
        range.setStart(node, start - offset);
        range.setEnd(node, Math.min(end - offset, length));
        const box = range.getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      }
      offset += length;
    }
    throw new Error('no such word');
  })()`);
}

describe('the note page, built around listening, in Chromium', () => {
  it('keeps the player in view on a long note, and Space, L, J and K play, go 5 s on and back, and pause', async () => {
    await open(longNote);
    await recordingReady();
    await axe.check('note-long', false);
    await page.evaluate('window.scrollTo(0, 8000)');
    await expect.poll(() => page.evaluate<number>('window.scrollY')).toBeGreaterThan(5000);
    const player = await page.locator('.player').boundingBox();
    expect(player?.y).toBeGreaterThanOrEqual(0);
    expect(player?.y).toBeLessThan(10);
    expect(await page.getByRole('button', { name: 'Play', exact: true }).isVisible()).toBe(true);

    // Focus on the page itself, not in a field.
    await page.locator('#transcript-title').click();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await recording()).paused).toBe(false);
    // The button follows the element's play event: wait for the render, failing if it never comes.
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor({ timeout: 5_000 });
    await page.keyboard.press('k');
    await expect.poll(async () => (await recording()).paused).toBe(true);
    const before = (await recording()).seconds;
    await page.keyboard.press('l');
    await expect.poll(async () => (await recording()).seconds).toBeCloseTo(before + 5, 0);
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await recording()).seconds).toBeCloseTo(before + 10, 0);
    await page.keyboard.press('j');
    await expect.poll(async () => (await recording()).seconds).toBeCloseTo(before + 5, 0);
    // Keys typed in a field are text, never shortcuts.
    await page.fill('#search-notes', 'plan');
    await page.press('#search-notes', 'Space');
    await page.press('#search-notes', 'l');
    expect((await recording()).paused).toBe(true);
    expect(await page.inputValue('#search-notes')).toBe('plan l');
  });

  it('follows playback through the transcript until the person scrolls away, then brings them back to the playing moment', async () => {
    await open(longNote);
    await recordingReady();
    // Play from a segment near the bottom of the screen, at double speed: the next one is below it.
    const first = 6;
    await page.locator(`#segment-${first}`).scrollIntoViewIfNeeded();
    await page.evaluate(
      `window.scrollBy(0, -(window.innerHeight - document.querySelector('#segment-${first}').getBoundingClientRect().bottom) + 4)`,
    );
    await page.locator('.player select').selectOption('2');
    await page.getByRole('button', { name: `Play from ${clockOf(first * SEGMENT_MS)}` }).click();
    const playing = () => page.evaluate<string>(`document.querySelector('.segment.playing')?.id ?? ''`);
    await expect.poll(playing, { timeout: 15_000 }).toBe(`segment-${first + 1}`);
    await expect.poll(() => inView('.segment.playing')).toBe(true);
    expect(await page.getByRole('button', { name: 'Back to the playing moment' }).count()).toBe(0);

    // The person scrolls on to read ahead: the transcript stays where they put it.
    await page.mouse.move(400, 600);
    await page.mouse.wheel(0, 4000);
    await expect.poll(() => inView('.segment.playing')).toBe(false);
    const back = page.getByRole('button', { name: 'Back to the playing moment' });
    await back.waitFor();
    const scrolled = await page.evaluate<number>('window.scrollY');
    await expect.poll(playing, { timeout: 15_000 }).toBe(`segment-${first + 2}`);
    expect(await page.evaluate<number>('window.scrollY')).toBe(scrolled);

    await back.click();
    await expect.poll(() => inView('.segment.playing')).toBe(true);
    expect(await back.count()).toBe(0);
    // The button is gone: the keyboard carries on from the playing segment, not from the page's top.
    const focused = () => page.evaluate<string>('document.activeElement.id');
    await expect.poll(focused).toMatch(/^segment-\d+$/);
    const playingNow = await playing();
    expect([playingNow, `segment-${Number(playingNow.split('-')[1]) - 1}`]).toContain(await focused());
    await page.locator('.player select').selectOption('1');
    await page.keyboard.press('k');
  });

  it('plays from the word clicked, leaves Space to pause it, opens the words on a double click, and highlights the word being said', async () => {
    await open(shortNote);
    await recordingReady();
    const segment = (await segments(shortNote))[3] as ApiSegment;
    const word = segment.words[5] as ApiSegment['words'][number];
    const at = await wordCentre(3, 5);
    await page.mouse.click(at.x, at.y);
    await expect.poll(async () => (await recording()).paused).toBe(false);
    const { seconds } = await recording();
    expect(seconds).toBeGreaterThanOrEqual(word.start_ms / 1000 - 0.05);
    expect(seconds).toBeLessThan(word.end_ms / 1000 + 0.5);
    // The click only played: no editor took the keyboard, so Space pauses, and types nothing.
    expect(await page.locator('.segment textarea').count()).toBe(0);
    const before = await visibleText(page.locator('#segment-3 .text'));
    await page.keyboard.press('Space');
    await expect.poll(async () => (await recording()).paused).toBe(true);
    expect(await page.locator('.segment textarea').count()).toBe(0);
    expect(await visibleText(page.locator('#segment-3 .text'))).toBe(before);
    expect((await segments(shortNote))[3]?.text).toBe(segment.text);
    // Correcting is its own gesture: a double click opens the words; Escape leaves them as they were.
    // The field has the keyboard as it appears, not a paint later: keys typed at once (a select-all
    // and a retyped text) land in it, where the caret is, and nothing typed is doubled.
    await page.evaluate(`window.editorAppeared = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        const field = document.querySelector('.segment textarea');
        if (!field) return;
        observer.disconnect();
        resolve(document.activeElement === field);
      });
      observer.observe(document.body, { childList: true, subtree: true });
    }); undefined`);
    const pausedAt = (await recording()).seconds;
    await page.mouse.dblclick(at.x, at.y);
    expect(await page.evaluate<boolean>('window.editorAppeared'), 'focused as it appeared').toBe(true);
    expect(await page.evaluate<string>('document.activeElement.tagName')).toBe('TEXTAREA');
    // Its first click plays nothing either, not even once the wait for a second click is over.
    await page.waitForTimeout(600);
    expect(await recording()).toMatchObject({ paused: true, seconds: pausedAt });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.segment textarea').count()).toBe(0);
    const position = (await recording()).seconds * 1000;
    const said = (await segments(shortNote))
      .flatMap((s) => s.words)
      .find((w) => position >= w.start_ms && position < w.end_ms);
    if (said) await expect.poll(() => page.locator('.segment.playing .said').textContent()).toBe(said.text);
    await axe.check('note-playing-word', false);
  });

  it('shows a segment’s tools on hover in a space of their own: every word stays visible and clickable', async () => {
    await open(shortNote);
    await recordingReady();
    const row = page.locator('#segment-4');
    await row.hover();
    await expect
      .poll(() =>
        page.evaluate<string>(`getComputedStyle(document.querySelector('#segment-4 .tools')).opacity`),
      )
      .toBe('1');
    const words = (await segments(shortNote))[4]?.words ?? [];
    expect(words.length).toBeGreaterThan(3);
    // What is under each word's centre is the words themselves, never a tool.
    for (let word = 0; word < words.length; word++) {
      const at = await wordCentre(4, word);
      const under = await page.evaluate<string>(
        `document.elementFromPoint(${at.x}, ${at.y})?.closest('.text, .tools')?.className ?? ''`,
      );
      expect(under, `word ${word}`).toBe('text');
    }
    const tools = await row.locator('.tools').boundingBox();
    const text = await row.locator('.text').boundingBox();
    expect((tools?.y ?? 0) + (tools?.height ?? 0)).toBeLessThanOrEqual((text?.y ?? 0) + 1);
    // The last word, at the right where the tools used to float, plays when clicked.
    const last = words.length - 1;
    const at = await wordCentre(4, last);
    await page.mouse.click(at.x, at.y);
    await expect.poll(async () => (await recording()).paused).toBe(false);
    expect((await recording()).seconds).toBeGreaterThanOrEqual((words[last]?.start_ms ?? 0) / 1000 - 0.05);
    await page.keyboard.press('k');
    await expect.poll(async () => (await recording()).paused).toBe(true);
    await axe.check('segment-tools-beside-its-time', false);
  });

  it('keeps the segment just said marked through the silence before the next one starts', async () => {
    await open(shortNote);
    await recordingReady();
    const all = await segments(shortNote);
    const said = all[5] as ApiSegment;
    const next = all[6] as ApiSegment;
    expect(next.start_ms - said.end_ms).toBeGreaterThan(300);
    const playingRow = () => page.evaluate<string>(`document.querySelector('.segment.playing')?.id ?? ''`);
    // In the middle of the pause after segment 5.
    const gap = (said.end_ms + next.start_ms) / 2;
    await page.evaluate(`${RECORDING}.currentTime = ${gap / 1000}`);
    await expect.poll(async () => (await recording()).seconds).toBeCloseTo(gap / 1000, 1);
    await expect.poll(playingRow).toBe('segment-5');
    expect(await page.locator('#segment-5').getAttribute('aria-current')).toBe('true');
    // Once the next one starts, it is the one marked.
    await page.evaluate(`${RECORDING}.currentTime = ${(next.start_ms + 100) / 1000}`);
    await expect.poll(playingRow).toBe('segment-6');
    expect(await page.locator('.segment[aria-current="true"]').count()).toBe(1);
  });

  it('costs one Tab stop per segment, reaches a segment’s controls with the arrows, and skips past the transcript to export and manage', async () => {
    await open(longNote);
    await page.locator('#segment-59').waitFor();
    const focused = () =>
      page.evaluate<{ id: string; cls: string; text: string }>(
        '({ id: document.activeElement.id, cls: document.activeElement.className, text: document.activeElement.textContent })',
      );
    await page.locator('#segment-0').focus();
    // Tab goes from one segment to the next, through none of their controls.
    for (let index = 1; index <= 5; index++) {
      await page.keyboard.press('Tab');
      expect((await focused()).id).toBe(`segment-${index}`);
    }
    // The focused segment shows its focus as plainly as any control: the focus ring.
    expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe(
      'solid',
    );
    // Within a segment, → and ← go through its controls; the toolbar shows while they have the focus.
    await page.keyboard.press('ArrowRight');
    expect((await focused()).cls).toContain('time');
    await page.keyboard.press('ArrowRight');
    expect((await focused()).text).toBe('Edit');
    expect(
      await page.evaluate<string>(`getComputedStyle(document.querySelector('#segment-5 .tools')).opacity`),
    ).toBe('1');
    await page.keyboard.press('ArrowRight');
    expect((await focused()).text).toBe('Speaker');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect((await focused()).cls).toContain('time');
    await page.keyboard.press('Escape');
    expect((await focused()).id).toBe('segment-5');
    await page.keyboard.press('ArrowDown');
    expect((await focused()).id).toBe('segment-6');
    await page.keyboard.press('ArrowUp');
    expect((await focused()).id).toBe('segment-5');
    // The whole transcript's Tab stops: one per segment drawn.
    const stops = await page.evaluate<number>(
      `[...document.querySelectorAll('.segments [tabindex], .segments button, .segments a')].filter((e) => e.tabIndex >= 0).length`,
    );
    expect(stops).toBe(await page.locator('.segment').count());
    // Past the transcript in one step.
    await page.locator('#transcript-title').scrollIntoViewIfNeeded();
    const skip = page.getByRole('button', { name: 'Skip to export and manage' });
    await skip.focus();
    expect(await skip.isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('exports-title');
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate<boolean>(`document.querySelector('.exports').contains(document.activeElement)`),
    ).toBe(true);
    await axe.check('transcript-keyboard-skip', false);
  });

  it('changes only the playing segment in the page while the recording plays', async () => {
    await open(longNote);
    await recordingReady();
    await page.evaluate(`(() => {
      window.changedRows = new Set();
      window.playedRows = new Set();
      new MutationObserver((records) => {
        for (const record of records) {
          const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
          const row = node && node.closest('.segment');
          if (row) window.changedRows.add(row.id);
        }
        const playing = document.querySelector('.segment.playing');
        if (playing) window.playedRows.add(playing.id);
      }).observe(document.querySelector('.segments'), { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await page.getByRole('button', { name: `Play from ${clockOf(20 * SEGMENT_MS)}` }).click();
    await expect
      .poll(() => page.evaluate<number>('window.playedRows.size'), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(2);
    await page.keyboard.press('k');
    const changed = await page.evaluate<string[]>('[...window.changedRows]');
    const played = await page.evaluate<string[]>('[...window.playedRows]');
    // The segments that played, and the one before the first (it stopped being the one at 0:00).
    expect(changed.length).toBeGreaterThanOrEqual(2);
    for (const id of changed) expect([...played, 'segment-0']).toContain(id);
  });

  it('plays a moment asked for before the recording is ready, once it is', async () => {
    const audioLink = await holdRequests(page, (url) => url.pathname === `/v1/notes/${shortNote}/audio`);
    try {
      await open(shortNote);
      const segment = (await segments(shortNote))[8] as ApiSegment;
      await page.getByRole('button', { name: `Play from ${clockOf(segment.start_ms)}` }).click();
      expect(await page.locator('.player [role="status"]').textContent()).toMatch(/recording/);
      audioLink.release();
      await expect
        .poll(
          async () => {
            const { seconds, paused } = await recording();
            return !paused && seconds >= segment.start_ms / 1000 - 0.05;
          },
          { timeout: 20_000 },
        )
        .toBe(true);
    } finally {
      await audioLink.end();
    }
    await page.keyboard.press('k');
  });

  it('shows the summary, action items and chapters beside the transcript, and a chapter plays from its start and shows it', {
    timeout: 120_000,
  }, async () => {
    expect((await service.api('POST', `/v1/notes/${longNote}/insights`, {})).status).toBe(202);
    await expect
      .poll(async () => (await service.api('GET', `/v1/notes/${longNote}/insights`)).status, {
        timeout: 90_000,
      })
      .toBe(200);
    const notFound: string[] = [];
    const listen = (message: { type(): string; text(): string }) => {
      if (message.type() === 'error' && message.text().includes('404')) notFound.push(message.text());
    };
    page.on('console', listen);
    await open(longNote);
    const summary = page.locator('.insights > p').first();
    await summary.waitFor();
    // Opening the note asked only for what it shows: no 404 for artifacts not generated yet.
    page.off('console', listen);
    expect(notFound).toEqual([]);
    // At the top of the page, without scrolling past the transcript.
    expect(await page.evaluate<number>('window.scrollY')).toBe(0);
    const box = await summary.boundingBox();
    expect(box?.y).toBeLessThan(900);
    const transcript = await page.locator('.transcript').boundingBox();
    expect(box?.x).toBeGreaterThan((transcript?.x ?? 0) + (transcript?.width ?? 0) - 1);
    await axe.check('note-with-summary-beside');

    const chapters = page.locator('.insights .chapters a');
    expect(await chapters.count()).toBeGreaterThan(1);
    const last = chapters.last();
    const startMs = Number((await last.getAttribute('href'))?.replace('#t=', ''));
    expect(startMs).toBeGreaterThan(60_000);
    await recordingReady();
    await last.click();
    await expect.poll(async () => (await recording()).seconds).toBeGreaterThanOrEqual(startMs / 1000 - 0.05);
    expect((await recording()).seconds).toBeLessThan(startMs / 1000 + 3);
    await expect.poll(() => inView('.segment.playing')).toBe(true);
    expect(Number(await page.locator('.segment.playing').getAttribute('data-start'))).toBeLessThanOrEqual(
      startMs,
    );
    // The list says which chapter is playing.
    expect(await last.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('.insights .chapters a[aria-current="true"]').count()).toBe(1);
    // Space on the focused chapter link pauses (a link has nothing to do with Space), and the side
    // panel stays where it was.
    await last.focus();
    expect(await page.evaluate<string>('document.activeElement.tagName')).toBe('A');
    const panelScroll = () => page.evaluate<number>(`document.querySelector('.note-panels').scrollTop`);
    const panelBefore = await panelScroll();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await recording()).paused).toBe(true);
    expect(await panelScroll()).toBe(panelBefore);
    await page.keyboard.press('Space');
    await expect.poll(async () => (await recording()).paused).toBe(false);
    await page.keyboard.press('k');

    // On a phone the summary comes first, above the transcript.
    await page.setViewportSize({ width: 390, height: 800 });
    const phoneSummary = await summary.boundingBox();
    const phoneTranscript = await page.locator('.transcript').boundingBox();
    expect(phoneSummary?.y).toBeLessThan(phoneTranscript?.y ?? 0);
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await axe.check('note-on-a-phone-summary-first', false);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('says how long the podcast lasts before it is played', { timeout: 180_000 }, async () => {
    const path = `/v1/notes/${shortNote}/artifacts/podcast`;
    expect((await service.api('POST', path, {})).status).toBe(202);
    await expect.poll(async () => (await service.api('GET', path)).status, { timeout: 150_000 }).toBe(200);
    const durationMs = Number(
      ((await service.api('GET', path)).body.content as { audio: { duration_ms: number } }).audio.duration_ms,
    );
    await open(shortNote);
    await page.getByRole('tab', { name: 'Podcast' }).click();
    const panel = page.locator('#panel-podcast');
    await expect.poll(() => panel.textContent()).toContain(`Lasts ${clockOf(durationMs)}`);
    // Its player knows its length (metadata loaded) without a press of Play.
    const podcast = `document.querySelector('audio[aria-label="Podcast audio"]')`;
    await expect
      .poll(() => page.evaluate<number>(`${podcast}.duration || 0`), { timeout: 20_000 })
      .toBeCloseTo(durationMs / 1000, 0);
    expect(await page.evaluate<boolean>(`${podcast}.paused`)).toBe(true);
    await axe.check('note-podcast-tab', false);
  });

  it('corrects a segment in place: Escape leaves it, Enter saves it with "Saving…", then "Saved"', async () => {
    await open(shortNote);
    const row = page.locator('#segment-2');
    const original = await visibleText(row.locator('.text'));
    // From the keyboard: Enter on the row opens its words; Escape leaves them unchanged, sending nothing.
    await row.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate<string>('document.activeElement.tagName')).toBe('TEXTAREA');
    await page.keyboard.type(' zebracorn');
    await page.keyboard.press('Escape');
    await expect.poll(() => row.locator('textarea').count()).toBe(0);
    expect(await visibleText(row.locator('.text'))).toBe(original);
    expect((await segments(shortNote))[2]?.text).toBe(original);

    // The row is the one being played (a click on its words plays them).
    await recordingReady();
    await row.locator('.text').click();
    await expect.poll(() => row.getAttribute('class')).toContain('playing');
    await page.evaluate(`${RECORDING}.pause()`);

    const edits = await holdRequests(page, (url) =>
      url.pathname.endsWith(`/notes/${shortNote}/transcription/edits`),
    );
    try {
      await row.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate<string>('document.activeElement.tagName')).toBe('TEXTAREA');
      await page.keyboard.press('End');
      await page.keyboard.type(' zebracorn');
      await page.keyboard.press('Enter');
      await row.getByRole('button', { name: 'Saving…' }).waitFor();
      expect(await row.locator('textarea').inputValue()).toBe(`${original} zebracorn`);
      await axe.check('segment-saving', false);
    } finally {
      await edits.end();
    }
    await expect.poll(() => visibleText(row.locator('.text'))).toBe(`${original} zebracorn`);
    expect(await row.locator('.saved').textContent()).toBe('Saved');
    expect((await segments(shortNote))[2]?.text).toBe(`${original} zebracorn`);
    // "Saved" stays legible on the row being played.
    await axe.check('segment-saved-while-playing', false);
    await page.getByRole('button', { name: 'Undo last correction' }).click();
    await expect.poll(() => visibleText(row.locator('.text'))).toBe(original);
  });

  it('moves the note to the trash from its page, saying so while it works and keeping the focus, and Undo in the toast, held while focused or hovered, restores it', {
    timeout: 60_000,
  }, async () => {
    await open(shortNote);
    const noteUpdates = await holdRequests(
      page,
      (url) => url.pathname === `/v1/notes/${shortNote}`,
      (request) => request.method() === 'PATCH',
    );
    const focusedText = () => page.evaluate<string>('document.activeElement.textContent');
    try {
      await page.getByRole('button', { name: 'Move to trash' }).click();
      await page.getByRole('button', { name: 'Moving to the trash…' }).waitFor();
      // Pending, it keeps the focus (it is not disabled, which would drop it to the page's body).
      expect(await focusedText()).toBe('Moving to the trash…');
    } finally {
      await noteUpdates.end();
    }
    await page.locator('.badge', { hasText: 'In the trash' }).waitFor();
    expect((await service.api('GET', `/v1/notes/${shortNote}`)).body.state).toBe('trashed');
    // The same control, now Restore, still holds the focus.
    await expect.poll(focusedText).toBe('Restore');
    const toast = page.locator('.toast');
    expect(await toast.textContent()).toContain('Moved to the trash');
    await axe.check('note-trashed-with-undo', false);
    // The toast stays while Undo has the focus, and while the pointer is over it, longer than it
    // would stay unattended (10 s).
    const undo = toast.getByRole('button', { name: 'Undo' });
    await undo.focus();
    await page.waitForTimeout(11_000);
    expect(await undo.isVisible()).toBe(true);
    await page.locator('#search-notes').focus();
    await toast.hover();
    await page.waitForTimeout(11_000);
    expect(await undo.isVisible()).toBe(true);
    await toast.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.locator('.badge', { hasText: 'In the trash' }).count()).toBe(0);
    expect((await service.api('GET', `/v1/notes/${shortNote}`)).body.state).toBe('active');
    await page.getByRole('button', { name: 'Move to trash' }).waitFor();
    // The toast went with its Undo: the focus is back on the control the trash was taken from.
    await expect.poll(focusedText).toBe('Move to trash');
  });

  it('met no serious or critical accessibility finding in any of these states', () => {
    expect(Object.keys(axe.findings).length).toBeGreaterThanOrEqual(5);
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

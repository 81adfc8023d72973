import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNamed } from '../fixtures/conversations/generate.ts';
import { ensureFixtures } from '../fixtures/generate.ts';
import { ensureRealVoices } from '../fixtures/real-voices/generate.ts';
import {
  type accessibilityChecks,
  screenshotFailedSteps,
  signedInPage,
  visibleText,
} from '../support/chromium.ts';
import { holdRequests } from '../support/held-requests.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * A person fixing who said what, in a real headless Chromium: a real two-speaker recording (a
 * LibriVox reader and the pocketsphinx "cards" speaker) uploaded through the app with the number of
 * speakers given, then speakers renamed (twice), segments given another speaker (an existing one and
 * a new one), split at a word and merged back, every correction undone, a correction made right after
 * a rename, an editor kept open with what was typed while a merge before it is saved, unsure words
 * shown (and kept through a rename), names carried into Insights and the epiphany. Every state is checked
 * with axe-core. NOTES_SCREENSHOTS_DIR=<dir> keeps a screenshot of each, at desktop and phone widths.
 */
const TRANSCRIPTION_TIMEOUT_MS = 180_000;
const UNSURE_BELOW = 0.5;
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let noteId: string;
let axe: ReturnType<typeof accessibilityChecks>;

interface ApiSegment {
  start_ms: number;
  speaker: string;
  speaker_label?: string;
  text: string;
  words?: Array<{ text: string; confidence: number | null }>;
}
interface ApiTranscript {
  conversation_segments: ApiSegment[];
  revision: number;
  notice?: { code: string; detail: string } | null;
}

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess();
  base = service.runtime.apiUrl;
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
  // Every message the app announces in its live region, to tell what the person was told.
  await page.evaluate(`(() => {
    window.announced = [];
    new MutationObserver(() => {
      const text = document.querySelector('.toast')?.textContent ?? '';
      if (text) window.announced.push(text);
    }).observe(document.querySelector('.toast'), { childList: true, characterData: true, subtree: true });
  })()`);
}, 120_000);

screenshotFailedSteps('fixing-speakers', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function transcript(): Promise<ApiTranscript> {
  const answer = await service.api('GET', `/v1/notes/${noteId}/transcription`);
  expect(answer.status).toBe(200);
  return answer.body as unknown as ApiTranscript;
}

async function speakerNames(): Promise<Record<string, string>> {
  return (await service.api('GET', `/v1/notes/${noteId}`)).body.speaker_names as Record<string, string>;
}

/** A segment's label: the service's `speaker_label`, else the label whose name its `speaker` is. */
function labelOf(segment: ApiSegment, names: Record<string, string> = {}): string {
  return (
    segment.speaker_label ??
    Object.entries(names).find(([, name]) => name === segment.speaker)?.[0] ??
    segment.speaker
  );
}

async function labels(): Promise<string[]> {
  const names = await speakerNames();
  return (await transcript()).conversation_segments.map((segment) => labelOf(segment, names));
}

const rows = () => page.locator('.transcript .segment');
const row = (index: number) => rows().nth(index);
const shownLabels = () =>
  page.evaluate<string[]>(
    `[...document.querySelectorAll('.transcript .segment')].map((row) => row.dataset.speakerLabel)`,
  );
const announced = () => page.evaluate<string[]>('window.announced');
/** Per row, the words shown as unsure. */
const unsureShown = () =>
  page.evaluate<string[][]>(
    `[...document.querySelectorAll('.transcript .segment')].map((row) =>
      [...row.querySelectorAll('.text .unsure')].map((word) => word.firstChild.textContent))`,
  );

/** A segment's text as shown (without what only screen readers hear, such as "(unsure)"). */
function shownText(index: number): Promise<string> {
  return visibleText(row(index).locator('.text'));
}

async function lastAnnouncement(): Promise<string> {
  return (await page.locator('.toast').textContent()) ?? '';
}

async function rename(label: string, from: string, to: string): Promise<void> {
  await page.locator(`.transcript .section-head button[data-speaker-label="${label}"]`).click();
  await page.getByLabel(`New name for ${from}`).fill(to);
  await page.locator('.transcript').getByRole('button', { name: 'Rename', exact: true }).click();
}

async function undo(): Promise<void> {
  const undone = page.waitForResponse((response) => response.url().endsWith('/transcription/undo'));
  await page.getByRole('button', { name: 'Undo last correction' }).click();
  expect((await undone).status()).toBe(200);
}

describe('fixing speakers in the web app, in Chromium', () => {
  it('asks how many people speak at upload and sends the answer as speakers_expected', {
    timeout: TRANSCRIPTION_TIMEOUT_MS + 60_000,
  }, async () => {
    const recording = fixtureNamed(await ensureRealVoices(), 'real-two-speakers');
    await page.fill('#speakers-expected', '2');
    await axe.check('upload-with-speaker-count');
    const submitted = page.waitForRequest(
      (request) => request.method() === 'POST' && /\/v1\/notes\/[^/]+\/transcription$/.test(request.url()),
    );
    await page.setInputFiles('#upload-file', recording.audio);
    expect((await submitted).postDataJSON()).toMatchObject({ speakers_expected: 2 });
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    noteId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    await page.getByRole('heading', { name: 'Transcript' }).waitFor({ timeout: TRANSCRIPTION_TIMEOUT_MS });
    const segments = (await transcript()).conversation_segments;
    expect(segments.length).toBeGreaterThan(2);
    expect(await rows().count()).toBe(segments.length);
    // The count given is obeyed exactly.
    expect(new Set(await labels()).size).toBe(2);
    await axe.check('transcript-to-fix');
  });

  it('renames a speaker, renames the same speaker again, and undoes a rename', async () => {
    // The rename's answer is shown while the transcript is read again (held back here): the names
    // change at once and the unsure words stay marked, though that answer carries no words.
    const marked = await unsureShown();
    const transcriptReads = await holdRequests(
      page,
      (url) => url.pathname.endsWith(`/notes/${noteId}/transcription`),
      (request) => request.method() === 'GET',
    );
    try {
      await rename('Speaker 1', 'Speaker 1', 'Elinor');
      await expect.poll(lastAnnouncement).toBe('Speaker 1 is now Elinor');
      const renamed = (await shownLabels()).indexOf('Speaker 1');
      await expect.poll(() => row(renamed).locator('.speaker').textContent()).toBe('Elinor');
      expect(await unsureShown()).toEqual(marked);
    } finally {
      await transcriptReads.end();
    }
    const first = (await shownLabels()).indexOf('Speaker 1');

    await rename('Speaker 1', 'Elinor', 'Marianne');
    await expect.poll(lastAnnouncement).toBe('Elinor is now Marianne');
    await expect.poll(() => row(first).locator('.speaker').textContent()).toBe('Marianne');
    expect((await speakerNames())['Speaker 1']).toBe('Marianne');
    expect((await announced()).join('\n')).not.toMatch(/speaker labels|must be/);

    // Undo goes back one rename, then the speaker is renamed again.
    await page.getByRole('button', { name: 'Undo last correction' }).click();
    await expect.poll(lastAnnouncement).toBe('Undone: the rename of Elinor to Marianne');
    await expect.poll(() => row(first).locator('.speaker').textContent()).toBe('Elinor');
    expect((await speakerNames())['Speaker 1']).toBe('Elinor');
    await rename('Speaker 1', 'Elinor', 'Marianne');
    await expect.poll(() => row(first).locator('.speaker').textContent()).toBe('Marianne');
    // A segment's corrections show where the pointer is.
    await row(1).hover();
    await axe.check('segment-tools-on-hover');
  });

  it('saves a correction made right after a rename, blaming no one', async () => {
    const original = (await transcript()).conversation_segments[0]?.text ?? '';
    await rename('Speaker 1', 'Marianne', 'Marianne Dashwood');
    // At once, without waiting for the rename's answer.
    const first = row(0);
    // The words themselves open for correction on a double click (there is no button per segment).
    await first.locator('.text').dblclick();
    await first.locator('textarea').fill(`${original} zebracorn`);
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => shownText(0)).toBe(`${original} zebracorn`);
    await expect.poll(announced).toContain('Correction saved');
    expect((await announced()).join('\n')).not.toMatch(/someone else/i);
    expect((await transcript()).conversation_segments[0]?.text).toBe(`${original} zebracorn`);
    expect((await speakerNames())['Speaker 1']).toBe('Marianne Dashwood');
    await undo();
    await expect.poll(() => shownText(0)).toBe(original);
  });

  it('gives a segment a new speaker, gives another segment that same speaker, and undoes both', async () => {
    const before = await labels();
    // The lowest label neither in use nor named, as the service suggests.
    const used = new Set([...before, ...Object.keys(await speakerNames())]);
    let number = 1;
    while (used.has(`Speaker ${number}`)) number += 1;
    const fresh = `Speaker ${number}`;

    await row(0)
      .getByRole('button', { name: /^Speaker — change who says the segment at/ })
      .click();
    await axe.check('segment-speaker-chooser');
    const chooser = row(0).getByLabel('Who says this?');
    await chooser.selectOption({ label: `A new speaker (${fresh})` });
    await row(0).getByRole('button', { name: 'Change speaker' }).click();
    await expect.poll(async () => (await shownLabels())[0]).toBe(fresh);
    expect(await row(0).locator('.speaker').textContent()).toBe(fresh);
    expect((await labels())[0]).toBe(fresh);

    // Now an existing speaker, offered by name.
    await row(1)
      .getByRole('button', { name: /^Speaker — change who says the segment at/ })
      .click();
    await row(1).getByLabel('Who says this?').selectOption({ label: fresh });
    await row(1).getByRole('button', { name: 'Change speaker' }).click();
    await expect.poll(async () => (await shownLabels())[1]).toBe(fresh);
    expect((await labels()).slice(0, 2)).toEqual([fresh, fresh]);

    await undo();
    await expect.poll(async () => (await shownLabels())[1]).toBe(before[1]);
    expect(await lastAnnouncement()).toMatch(/^Undone: the change of speaker at /);
    await undo();
    await expect.poll(async () => (await shownLabels())[0]).toBe(before[0]);
    expect(await labels()).toEqual(before);
  });

  it('merges two speakers who are one person, from the speaker’s name, and one undo separates them again', async () => {
    const before = await labels();
    const [kept, merged] = [...new Set(before)];
    expect(merged, 'the conversation has two speakers').toBeDefined();
    const keptName = (await speakerNames())[kept as string] ?? (kept as string);
    await page.locator(`.transcript .section-head button[data-speaker-label="${merged}"]`).click();
    await axe.check('speaker-same-person');
    await page.getByLabel('or the same person as').selectOption({ label: keptName });
    await page.locator('.transcript').getByRole('button', { name: 'Merge', exact: true }).click();
    await expect.poll(labels).toEqual(before.map(() => kept));
    await expect.poll(lastAnnouncement).toMatch(/are now one speaker$/);
    expect(new Set(await shownLabels())).toEqual(new Set([kept]));

    await undo();
    await expect.poll(labels).toEqual(before);
    await expect.poll(async () => new Set(await shownLabels()).size).toBe(2);
  });

  it('splits a segment before a word, by keyboard, merges it back with the next, and undoes both', async () => {
    const segments = (await transcript()).conversation_segments;
    const index = segments.findIndex((segment) => segment.text.split(' ').length >= 3);
    expect(index).toBeGreaterThanOrEqual(0);
    const words = (segments[index] as ApiSegment).text.split(' ');
    const count = segments.length;

    await row(index)
      .getByRole('button', { name: /^Split the segment at/ })
      .focus();
    await page.keyboard.press('Enter');
    // Focus lands on the first place to split (before word 2); Tab goes on to the next word.
    await expect
      .poll(() => page.evaluate<string>('document.activeElement.textContent'))
      .toBe(`Split before ${words[1]} (word 2)`);
    await axe.check('segment-split-picker');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => rows().count()).toBe(count + 1);
    let after = (await transcript()).conversation_segments;
    expect(after[index]?.text).toBe(words.slice(0, 2).join(' '));
    expect(after[index + 1]?.text).toBe(words.slice(2).join(' '));
    expect(await lastAnnouncement()).toBe(`Split in two before “${words[2]}”`);
    // Focus stays with the segment, not thrown back to the top of the page.
    expect(await page.evaluate<string>('document.activeElement.id')).toBe(`segment-${index}`);

    await row(index)
      .getByRole('button', { name: /^Merge the segment at .* with the next$/ })
      .click();
    await expect.poll(() => rows().count()).toBe(count);
    after = (await transcript()).conversation_segments;
    expect(after[index]?.text).toBe(words.join(' '));

    await undo();
    await expect.poll(() => rows().count()).toBe(count + 1);
    expect(await lastAnnouncement()).toMatch(/^Undone: the merge at /);
    await undo();
    await expect.poll(() => rows().count()).toBe(count);
    expect((await transcript()).conversation_segments.map((segment) => segment.text)).toEqual(
      segments.map((segment) => segment.text),
    );
  });

  it('keeps an editor opened on another segment, and what was typed in it, when a merge before it is saved', async () => {
    const segments = (await transcript()).conversation_segments;
    const count = segments.length;
    const text = segments[2]?.text ?? '';
    // The merge's answer is held back until the person has opened another segment's editor and typed.
    const edits = await holdRequests(page, (url) =>
      url.pathname.endsWith(`/notes/${noteId}/transcription/edits`),
    );
    try {
      await row(0)
        .getByRole('button', { name: /^Merge the segment at .* with the next$/ })
        .click();
      await row(2).locator('.text').dblclick();
      await row(2).locator('textarea').fill(`${text} quokka`);
    } finally {
      await edits.end();
    }
    await expect.poll(() => rows().count()).toBe(count - 1);
    await expect.poll(lastAnnouncement).toMatch(/^The segment at .* was merged with the next$/);
    // The editor stays open on its segment, now one row up, with what was typed.
    expect(await row(1).locator('textarea').inputValue()).toBe(`${text} quokka`);
    await row(1).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => shownText(1)).toBe(`${text} quokka`);
    expect((await transcript()).conversation_segments[1]?.text).toBe(`${text} quokka`);

    await undo();
    await expect.poll(() => shownText(1)).toBe(text);
    await undo();
    await expect.poll(() => rows().count()).toBe(count);
    expect((await transcript()).conversation_segments.map((segment) => segment.text)).toEqual(
      segments.map((segment) => segment.text),
    );
  });

  it('underlines exactly the words the recogniser was unsure of, and says what the underline means', async () => {
    const segments = (await transcript()).conversation_segments;
    const rated = segments
      .flatMap((segment) => segment.words ?? [])
      .filter((word) => word.confidence !== null);
    // The service rates its words (local engine: pocketsphinx's posteriors).
    expect(rated.length).toBeGreaterThan(0);
    // Words line up one to one with the space-separated tokens of the text, which is what is shown.
    const unsure = segments.map((segment) => {
      const tokens = segment.text.split(' ');
      expect(segment.words?.length).toBe(tokens.length);
      return tokens.filter((_, i) => {
        const confidence = segment.words?.[i]?.confidence;
        return typeof confidence === 'number' && confidence < UNSURE_BELOW;
      });
    });
    expect(await unsureShown()).toEqual(unsure);
    const legend = page.locator('.transcript .legend');
    if (unsure.flat().length > 0) {
      expect(await legend.textContent()).toContain('the recogniser was unsure of these words');
      // Screen readers hear it on the word itself.
      expect(await page.locator('.text .unsure').first().textContent()).toMatch(/ \(unsure\)$/);
    } else expect(await legend.count()).toBe(0);
  });

  it('carries the names given into generated Insights and the epiphany', async () => {
    const names = await speakerNames();
    await page.getByRole('button', { name: 'Generate insights' }).click();
    const talkTime = page.locator('.insights .talk-time');
    await talkTime.waitFor({ timeout: 60_000 });
    expect(await talkTime.textContent()).toContain(names['Speaker 1']);
    expect(await talkTime.textContent()).not.toContain('Speaker 1:');
    await axe.check('insights-with-names');

    // The artifacts are tabs beside the transcript: the epiphany's is chosen first.
    await page.getByRole('tab', { name: 'Epiphany' }).click();
    await page.getByRole('button', { name: 'Generate epiphany' }).click();
    const epiphany = page.locator('section[aria-labelledby="generated-epiphany"]');
    await epiphany.getByRole('button', { name: 'Regenerate' }).waitFor({ timeout: 60_000 });
    const text = (await epiphany.textContent()) ?? '';
    // It says who said each moment it cites ("said at 00:00:00 (Marianne Dashwood)").
    expect(text).toContain(`(${names['Speaker 1']}`);
    expect(text).not.toContain('Speaker 1');
  });

  it('keeps every correction at hand on a phone, with no sideways scrolling', async () => {
    for (const width of [320, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${base}/#/notes/${noteId}`);
      await page.getByRole('heading', { name: 'Transcript' }).waitFor();
      // Where there is no hover, the tools sit under each segment, visible.
      expect(
        await row(0)
          .getByRole('button', { name: /^Split the segment at/ })
          .isVisible(),
      ).toBe(true);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `at ${width}px`).toBeLessThanOrEqual(0);
      if (SCREENSHOTS)
        await page.screenshot({ path: join(SCREENSHOTS, `transcript-at-${width}px.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('says no speech was heard, in the app’s words, and invents no words, for a recording with no speech', {
    timeout: TRANSCRIPTION_TIMEOUT_MS + 60_000,
  }, async () => {
    const silence = join(tmpdir(), 'silence.wav');
    await copyFile((await ensureFixtures()).silence, silence);
    await page.goto(`${base}/#/`);
    await page.setInputFiles('#upload-file', silence);
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    noteId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    await page.getByRole('heading', { name: 'Transcript' }).waitFor({ timeout: TRANSCRIPTION_TIMEOUT_MS });
    const { notice, conversation_segments } = await transcript();
    expect(notice?.code).toBe('no_speech');
    expect(conversation_segments).toEqual([]);
    expect(await page.locator('#transcript-notice').textContent()).toMatch(
      /^No speech was heard in this recording .*check that the right file was uploaded\.$/,
    );
    expect(await rows().count()).toBe(0);
    await axe.check('transcript-no-speech');
  });

  it('met no serious or critical accessibility finding in any of these states', () => {
    expect(Object.keys(axe.findings).length).toBeGreaterThanOrEqual(5);
    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
  });
});

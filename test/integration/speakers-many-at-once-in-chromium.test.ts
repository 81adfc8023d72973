import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConversationFixture,
  ensureConversations,
  fixtureNamed,
  referenceSpeakerOf,
} from '../fixtures/conversations/generate.ts';
import { type accessibilityChecks, screenshotFailedSteps, signedInPage } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * A person giving many segments to a speaker at once, in a real headless Chromium: a two-voice
 * recording (flite slt and rms) transcribed by the service, three of one voice's segments given to
 * the other speaker (the diarizer's mistake, made by a correction), then one of them changed back in
 * the app: the app offers the other two ("Apply to similar segments") and gives them in one
 * correction, which one Undo takes back; and a segment with the rest of its run up to the next
 * change of speaker, from the speaker chooser. axe-core on each state; NOTES_SCREENSHOTS_DIR=<dir>
 * keeps screenshots at desktop and phone widths.
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let noteId: string;
let fixture: ConversationFixture;
let axe: ReturnType<typeof accessibilityChecks>;

interface ApiSegment {
  start_ms: number;
  end_ms: number;
  speaker_label: string;
}

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess();
  base = service.runtime.apiUrl;
  fixture = fixtureNamed(await ensureConversations(), 'two-speakers');
  noteId = crypto.randomUUID();
  await submitAndUpload(service.api, noteId, fixture.audio, 'audio/wav', 'Two voices', {
    speakers_expected: 2,
  });
  const { final } = await pollUntilDone(service.api, `/v1/notes/${noteId}/transcription`);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
}, 240_000);

screenshotFailedSteps('speakers-many-at-once', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function segments(): Promise<{ list: ApiSegment[]; etag: string }> {
  const answer = await service.api('GET', `/v1/notes/${noteId}/transcription`);
  expect(answer.status).toBe(200);
  return {
    list: (answer.body as unknown as { conversation_segments: ApiSegment[] }).conversation_segments,
    etag: String(answer.headers.get('etag')),
  };
}

const truthOf = (segment: { start_ms: number; end_ms: number }) => referenceSpeakerOf(fixture.truth, segment);

/**
 * The diarizer's mistake, made by a correction: three of the second voice's segments given to the
 * first speaker. Returns the labels as the recogniser made them, both labels and the three segments.
 */
async function makeMistake() {
  const start = await segments();
  const original = start.list.map((segment) => segment.speaker_label);
  const voiceOf = new Map(start.list.map((s) => [s.speaker_label, truthOf(s)]));
  const [labelA, labelB] = [...voiceOf.keys()].sort() as [string, string];
  const ofB = start.list.flatMap((s, i) =>
    s.speaker_label === labelB && truthOf(s) === voiceOf.get(labelB) ? [i] : [],
  );
  const wrong = ofB.slice(0, 3) as [number, number, number];
  const mistake = await service.api('POST', `/v1/notes/${noteId}/transcription/edits`, {
    body: { edits: [{ op: 'set_speakers', segments: wrong, speaker: labelA }] },
    headers: { 'if-match': start.etag },
  });
  expect(mistake.status).toBe(200);
  return { original, labelA, labelB, wrong };
}

/** Gives segment `index` to `label` from its speaker chooser. */
async function changeSpeaker(index: number, label: string): Promise<void> {
  await row(index)
    .getByRole('button', { name: /^Speaker — change who says the segment at/ })
    .click();
  await row(index).getByLabel('Who says this?').selectOption({ label });
  await row(index).getByRole('button', { name: 'Change speaker' }).click();
}

const row = (index: number) => page.locator('.transcript .segment').nth(index);
const shownLabels = () =>
  page.evaluate<string[]>(
    `[...document.querySelectorAll('.transcript .segment')].map((row) => row.dataset.speakerLabel)`,
  );

/** The note page, read afresh (the same hash again would not reload what a correction by API changed). */
async function openNote(): Promise<void> {
  await page.goto(`${base}/#/notes/${noteId}`);
  await page.reload();
  await page.getByRole('heading', { name: 'Transcript' }).waitFor();
}

async function undo(): Promise<void> {
  const undone = page.waitForResponse((response) => response.url().endsWith('/transcription/undo'));
  await page.getByRole('button', { name: 'Undo last correction' }).click();
  expect((await undone).status()).toBe(200);
}

describe('giving many segments to a speaker at once, in Chromium', () => {
  it('offers the segments in a voice like the one just corrected, gives them in one correction, and one Undo takes it back', async () => {
    const { original, labelA, labelB, wrong } = await makeMistake();
    await openNote();
    await changeSpeaker(wrong[0], labelB);
    const offer = page.getByRole('region', { name: 'Similar segments' });
    await offer.waitFor();
    expect(await offer.textContent()).toMatch(new RegExp(`^2 more segments sound like ${labelB} \\(at `));
    await axe.check('similar-segments-offer');
    const applied = page.waitForResponse((response) => response.url().endsWith('/transcription/edits'));
    await offer.getByRole('button', { name: `Give all 2 to ${labelB}` }).click();
    const body = (await applied).request().postDataJSON() as { edits: unknown[] };
    expect(body.edits).toEqual([{ op: 'set_speakers', segments: wrong.slice(1), speaker: labelB }]);
    await expect.poll(shownLabels).toEqual(original);
    await expect.poll(() => offer.count()).toBe(0);

    // One Undo takes back the two at once; the next, the change made by hand.
    await undo();
    await expect
      .poll(async () => (await shownLabels()).filter((label, i) => label !== original[i]).length)
      .toBe(2);
    await undo();
    await expect.poll(async () => (await shownLabels())[wrong[0]]).toBe(labelA);
    // And the mistake itself: the transcript as the recogniser made it.
    await undo();
    await expect.poll(shownLabels).toEqual(original);
  });

  it('offers the segments in a voice like a speaker just named, and gives them in one correction', async () => {
    const { original, labelB, wrong } = await makeMistake();
    await openNote();
    await page.locator(`.transcript .section-head button[data-speaker-label="${labelB}"]`).click();
    await page.getByLabel(`New name for ${labelB}`).fill('Bea');
    await page.locator('.transcript').getByRole('button', { name: 'Rename', exact: true }).click();
    const offer = page.getByRole('region', { name: 'Similar segments' });
    await offer.waitFor();
    expect(await offer.textContent()).toMatch(/^3 more segments sound like Bea \(at /);
    await offer.getByRole('button', { name: 'Give all 3 to Bea' }).click();
    await expect.poll(shownLabels).toEqual(original);
    expect((await segments()).list.map((segment) => segment.speaker_label)).toEqual(original);
    // Back as it was, newest first: the correction, the name (this session's), then the mistake.
    await undo();
    await expect.poll(async () => (await shownLabels())[wrong[0]]).not.toBe(labelB);
    const names = async () =>
      (await service.api('GET', `/v1/notes/${noteId}`)).body.speaker_names as Record<string, string>;
    await page.getByRole('button', { name: 'Undo last correction' }).click();
    await expect.poll(async () => (await names())[labelB]).toBeUndefined();
    await undo();
    await expect.poll(shownLabels).toEqual(original);
  });

  it('gives a segment and the rest of its run, up to the next change of speaker, to another speaker', async () => {
    // A run of three segments of one speaker: the recording alternates, so segments 1 and 2 are given
    // to segment 0's speaker first (by a correction, as a person would have).
    const start = await segments();
    const first = start.list[0]?.speaker_label as string;
    const prepared = await service.api('POST', `/v1/notes/${noteId}/transcription/edits`, {
      body: { edits: [{ op: 'set_speakers', segments: [1, 2], speaker: first }] },
      headers: { 'if-match': start.etag },
    });
    expect(prepared.status).toBe(200);
    const labels = (await segments()).list.map((segment) => segment.speaker_label);
    const index = 0;
    let end = index;
    while (labels[end + 1] === labels[index]) end++;
    const other = labels.find((label) => label !== labels[index]) as string;
    await openNote();
    await row(index)
      .getByRole('button', { name: /^Speaker — change who says the segment at/ })
      .click();
    await row(index).getByLabel('Who says this?').selectOption({ label: other });
    const through = row(index).locator('.through-run');
    expect((await through.textContent())?.trim()).toBe(
      `Also the next ${end - index === 1 ? 'segment' : `${end - index} segments`}, up to the next change of speaker`,
    );
    await through.getByRole('checkbox').check();
    await axe.check('speaker-chooser-through-run');
    await row(index).getByRole('button', { name: 'Change speaker' }).click();
    const expected = labels.map((label, i) => (i >= index && i <= end ? other : label));
    await expect.poll(shownLabels).toEqual(expected);
    await expect.poll(async () => (await segments()).list.map((s) => s.speaker_label)).toEqual(expected);
    await undo();
    await expect.poll(shownLabels).toEqual(labels);
    await undo();
    await expect.poll(shownLabels).toEqual(start.list.map((segment) => segment.speaker_label));
  });

  it('selects segments with shift-click and Shift+arrows, and gives them all to one speaker in one correction', async () => {
    const { list } = await segments();
    const labels = list.map((segment) => segment.speaker_label);
    const other = labels.find((label) => label !== labels[0]) as string;
    await openNote();
    // Shift-click on one segment's words, then on another's: both and those between are selected.
    await row(0)
      .locator('.text')
      .click({ modifiers: ['Shift'] });
    await row(3)
      .locator('.text')
      .click({ modifiers: ['Shift'] });
    const bar = page.getByRole('form', { name: 'Selected segments' });
    await expect.poll(() => bar.getByRole('status').textContent()).toBe('4 segments selected');
    expect(await page.locator('.transcript .segment.selected').count()).toBe(4);
    await axe.check('segments-selected');
    // From the keyboard: Shift+↓ from the focused row goes on selecting.
    await row(3).focus();
    await page.keyboard.press('Shift+ArrowDown');
    await expect.poll(() => bar.getByRole('status').textContent()).toBe('5 segments selected');
    await bar.getByLabel('Who says them?').selectOption({ label: other });
    const sent = page.waitForRequest((request) => request.url().endsWith('/transcription/edits'));
    await bar.getByRole('button', { name: 'Give all 5' }).click();
    expect((await sent).postDataJSON()).toEqual({
      edits: [{ op: 'set_speakers', segments: [0, 1, 2, 3, 4], speaker: other }],
    });
    const expected = labels.map((label, i) => (i <= 4 ? other : label));
    await expect.poll(shownLabels).toEqual(expected);
    await expect.poll(() => bar.count()).toBe(0);
    await undo();
    await expect.poll(shownLabels).toEqual(labels);
    // Escape in the bar, or "Clear selection", ends a selection without changing anything.
    await row(1)
      .locator('.text')
      .click({ modifiers: ['Shift'] });
    await bar.getByRole('button', { name: 'Clear selection' }).click();
    await expect.poll(() => page.locator('.transcript .segment.selected').count()).toBe(0);
  });

  it('lays the offer out at phone widths without scrolling sideways, and "Not now" puts it away', async () => {
    for (const width of [320, 390]) {
      const { original, labelB, wrong } = await makeMistake();
      await page.setViewportSize({ width, height: 800 });
      await openNote();
      await changeSpeaker(wrong[0], labelB);
      const offer = page.getByRole('region', { name: 'Similar segments' });
      await offer.waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `at ${width}px`).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await offer.screenshot({ path: join(SCREENSHOTS, `similar-offer-at-${width}px.png`) });
      await offer.getByRole('button', { name: 'Not now' }).click();
      await expect.poll(() => offer.count()).toBe(0);
      await undo();
      await undo();
      await expect.poll(shownLabels).toEqual(original);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('has no serious accessibility finding in any state', () => {
    expect(Object.keys(axe.findings).length).toBeGreaterThanOrEqual(2);
    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
  });
});

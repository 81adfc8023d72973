import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type accessibilityChecks, screenshotFailedSteps, signedInPage } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { speakerTestModel, voiceModelReady } from '../support/speaker-test-model.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';
import { type VoiceRecordings, voiceRecordings } from '../support/voice-recordings.ts';

/**
 * A person keeping a voice and meeting it again, in a real headless Chromium, with the test voice
 * model (voice-profiles.test.ts says why it will do): voice profiles turned on in Account, a speaker
 * named in one note and their voice kept from the offer that follows, the same voice named in the
 * next recording and confirmed, then the profile renamed and deleted in Account. axe-core on each
 * state; NOTES_SCREENSHOTS_DIR=<dir> keeps screenshots at desktop and phone widths.
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let recordings: VoiceRecordings;
let axe: ReturnType<typeof accessibilityChecks>;

interface Profiles {
  enabled: boolean;
  profiles: { name: string; taught: number }[];
}

beforeAll(async () => {
  recordings = await voiceRecordings();
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  process.env.NOTES_VOICE_MODEL = await speakerTestModel();
  service = await startInProcess();
  base = service.runtime.apiUrl;
  await voiceModelReady(base);
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
}, 300_000);

screenshotFailedSteps('voice-profiles', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function transcribed(file: string): Promise<string> {
  const noteId = crypto.randomUUID();
  await submitAndUpload(service.api, noteId, file, 'audio/wav', 'Ada reads', { speakers_expected: 1 });
  const { final } = await pollUntilDone(service.api, `/v1/notes/${noteId}/transcription`);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return noteId;
}

const profiles = async () =>
  (await service.api('GET', '/v1/account/voice-profiles')).body as unknown as Profiles;

async function openAccount(): Promise<void> {
  await page.goto(`${base}/#/account`);
  await page.getByRole('heading', { name: 'Voice profiles' }).waitFor();
}

async function openNote(noteId: string): Promise<void> {
  await page.goto(`${base}/#/notes/${noteId}`);
  await page.reload();
  await page.getByRole('heading', { name: 'Transcript' }).waitFor();
}

describe('voice profiles, in Chromium', () => {
  it('turns voice profiles on from the Account page, which says what is kept', async () => {
    await openAccount();
    const section = page.getByRole('region', { name: 'Voice profiles' });
    expect(await section.textContent()).toMatch(/never the audio/);
    await section.getByLabel('Recognise kept voices in new recordings').check();
    await expect.poll(async () => (await profiles()).enabled).toBe(true);
    await axe.check('voice-profiles-on');
  });

  it('offers to keep the voice of a speaker just named, and keeps it', async () => {
    const first = await transcribed(recordings.first);
    await openNote(first);
    await page.locator('.transcript .section-head button[data-speaker-label="Speaker 1"]').click();
    await page.getByLabel('New name for Speaker 1').fill('Ada');
    await page.locator('.transcript').getByRole('button', { name: 'Rename', exact: true }).click();
    const offer = page.getByRole('region', { name: 'Keep this voice' });
    await offer.waitFor();
    expect(await offer.textContent()).toMatch(/^Keep Ada's voice\? Later recordings will name Ada/);
    await axe.check('voice-profiles-keep-offer');
    if (SCREENSHOTS) {
      await page.setViewportSize({ width: 390, height: 844 });
      await offer.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'voice-profiles-keep-offer-phone.png') });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await offer.getByRole('button', { name: "Keep Ada's voice" }).click();
    await expect.poll(async () => (await profiles()).profiles.map((p) => p.name)).toEqual(['Ada']);
    await expect.poll(() => offer.count()).toBe(0);
  });

  it('names the kept voice in the next recording, for the person to confirm', async () => {
    const second = await transcribed(recordings.second);
    await openNote(second);
    const question = page.getByRole('region', { name: 'Is this Ada?' });
    await question.waitFor();
    expect(await question.textContent()).toMatch(
      /^Speaker 1 sounds like Ada, whose voice you kept \(similarity [01]\.\d\d\)/,
    );
    expect(
      await page.locator('.transcript .section-head button[data-speaker-label="Speaker 1"]').textContent(),
    ).toMatch(/^Ada/);
    await axe.check('voice-profiles-known-voice');
    await question.getByRole('button', { name: 'Yes, it is Ada' }).click();
    await expect.poll(() => question.count()).toBe(0);
    const note = (await service.api('GET', `/v1/notes/${second}`)).body as {
      voice_matches: Record<string, { status: string }>;
    };
    expect(note.voice_matches['Speaker 1']?.status).toBe('confirmed');
    expect((await profiles()).profiles[0]?.taught).toBe(2);
  });

  it('renames and deletes a kept voice in Account', async () => {
    await openAccount();
    const section = page.getByRole('region', { name: 'Voice profiles' });
    await expect
      .poll(() => section.locator('li').first().textContent())
      .toMatch(/^Ada\s*learned from 2 speakers/);
    await section.getByRole('button', { name: 'Rename Ada' }).click();
    await section.getByLabel('New name for Ada').fill('Ada Lovelace');
    await section.getByRole('button', { name: 'Rename', exact: true }).click();
    await expect.poll(async () => (await profiles()).profiles.map((p) => p.name)).toEqual(['Ada Lovelace']);
    await axe.check('voice-profiles-list');
    await section.getByRole('button', { name: "Delete Ada Lovelace's voice" }).click();
    await page.getByLabel('Type delete to confirm').fill('delete');
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    await expect.poll(async () => (await profiles()).profiles).toEqual([]);
    await section.getByText('No voices kept yet.').waitFor();
  });

  it('has no serious accessibility finding in any state', () => {
    expect(Object.keys(axe.findings)).toHaveLength(4);
    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import { storeUntranscribedBrowserRecording } from '../support/browser-recording.ts';
import { type accessibilityChecks, screenshotFailedSteps, signedInPage } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * Issue 39, as a person in a real headless Chromium: a recording that waits for a recogniser other
 * recordings hold says so on its note page, with the recordings ahead and, when the service has an
 * estimate, about how long; never "Transcribing" with an empty bar. The jobs are written at stage
 * `waiting` as the worker writes them (the workers are off, so nothing moves on meanwhile).
 * NOTES_SCREENSHOTS_DIR=<dir> keeps pictures of each state.
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR;

let service: InProcessService;
let base: string;
let browser: Browser;
let page: Page;
let axe: ReturnType<typeof accessibilityChecks>;
const estimated = randomUUID();
const unestimated = randomUUID();

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  const account = String((await service.api('GET', '/v1/account')).body.account_id);
  const waiting = (recordingsAhead: number, startsInMs?: number) => ({
    status: 'processing' as const,
    stage: 'waiting',
    waiting: {
      recordings_ahead: recordingsAhead,
      ...(startsInMs === undefined ? {} : { estimated_start_at: Date.now() + startsInMs }),
    },
  });
  await storeUntranscribedBrowserRecording(
    getServices(),
    account,
    { id: estimated, title: 'Voice memo', seconds: 8 },
    waiting(1, 200_000),
  );
  await storeUntranscribedBrowserRecording(
    getServices(),
    account,
    { id: unestimated, title: 'Another memo', seconds: 8 },
    waiting(2),
  );
  ({ browser, page, axe } = await signedInPage(base, service.dataDir, SCREENSHOTS));
}, 180_000);

screenshotFailedSteps('waiting-for-a-recogniser', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('a recording waiting for a recogniser, as a person sees it', () => {
  it('says how many recordings are ahead and about how long, and only the recordings ahead while there is no estimate', async () => {
    await page.goto(`${base}/#/notes/${estimated}`);
    await page.getByRole('heading', { name: 'Voice memo', level: 1 }).waitFor();
    const status = page.getByRole('status').filter({ hasText: 'Waiting' });
    await expect(status.textContent()).resolves.toContain('Waiting: 1 recording ahead, about 3 minutes');
    // The badge beside the date says so too: nothing is transcribing it yet.
    expect(await page.getByText('Transcribing').count()).toBe(0);
    expect(await page.locator('.badge').first().textContent()).toBe('Waiting');
    await axe.check('waiting-with-an-estimate');

    await page.goto(`${base}/#/notes/${unestimated}`);
    await page.getByRole('heading', { name: 'Another memo', level: 1 }).waitFor();
    const other = page.getByRole('status').filter({ hasText: 'Waiting' });
    await expect(other.textContent()).resolves.toBe('Waiting: 2 recordings ahead');
    await axe.check('waiting-without-an-estimate');

    for (const [name, violations] of Object.entries(axe.findings)) expect(violations, name).toEqual([]);
  });
});

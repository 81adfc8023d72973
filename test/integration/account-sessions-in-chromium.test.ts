import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityChecks, launchChromium, screenshotFailedSteps, signIn } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor, type FlowTokens } from '../support/oauth-flow.ts';

/**
 * Issue 35 as a person in Chromium: signed in once, a second tab opened on a deep link lands signed
 * in without the key (the browser's sign-in session); the Account page lists both tabs, the browser
 * and an AI assistant signed in over HTTP, in plain words; the assistant's session is ended from the
 * keyboard and its token stops working; "Sign out everywhere else" ends the other tab; signing out
 * from the list ends this browser's sign-in. axe finds nothing; screenshots at desktop and phone
 * width go to NOTES_SCREENSHOTS_DIR (or a temporary directory).
 */
const SCREENSHOTS = process.env.NOTES_SCREENSHOTS_DIR ?? join(tmpdir(), 'account-sessions-screenshots');

let service: InProcessService;
let base: string;
let apiKey: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let secondTab: Page;
let assistant: FlowTokens;
let archiver: FlowTokens;
let axe: ReturnType<typeof accessibilityChecks>;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  axe = accessibilityChecks(page, SCREENSHOTS);
  await page.goto(base);
  // The sign-in page's "Stay signed in on this browser" is ticked as it comes.
  await signIn(page, apiKey);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
}, 120_000);

screenshotFailedSteps('account-sessions', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const sessionRows = () => page.locator('.session-list > li');
const row = (name: string | RegExp) => sessionRows().filter({ hasText: name });
/** The row marked "This tab", "This browser"… (exactly: "this browser" ends another mark too). */
const marked = (where: string) =>
  sessionRows().filter({ has: page.locator('.badge', { hasText: new RegExp(`^${where}$`) }) });

function tabToken(tab: Page): Promise<string> {
  return tab.evaluate<string>(`JSON.parse(sessionStorage.getItem('notes.session')).access_token`);
}

function notesWith(token: string): Promise<number> {
  return fetch(`${base}/v1/notes`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
}

describe('signed-in sessions on the Account page (issue 35)', () => {
  it('opens a second tab on a deep link signed in, without asking for the key', async () => {
    secondTab = await context.newPage();
    const visited: string[] = [];
    secondTab.on('framenavigated', (frame) => {
      if (frame === secondTab.mainFrame()) visited.push(frame.url());
    });
    await secondTab.goto(`${base}/#/trash`);
    await secondTab.getByRole('heading', { name: 'Trash', level: 1 }).waitFor({ timeout: 20_000 });
    expect(new URL(secondTab.url()).hash).toBe('#/trash');
    // No page of the authorization server was shown: it answered with the code at once.
    expect(visited.filter((url) => url.includes('/oauth/'))).toEqual([]);
    expect(await secondTab.locator('#api_key').count()).toBe(0);
    expect(await notesWith(await tabToken(secondTab))).toBe(200);
  });

  it('lists both tabs, the browser and an assistant in plain words, with axe finding nothing', async () => {
    // The assistant signs in with a key of its own, named as a person names keys.
    const key = await service.api<{ api_key: string }>('POST', '/v1/account/keys', {
      body: { name: 'Assistant', scopes: ['notes:read', 'notes:write', 'notes:process'] },
    });
    assistant = await accessTokenFor({
      baseUrl: base,
      apiKey: key.body.api_key,
      clientName: 'Claude Desktop',
      resource: `${base}/v1`,
    });
    expect(await notesWith(assistant.access_token)).toBe(200);
    // Each tab runs at full speed only in front (a hidden tab's timers are slowed).
    await page.bringToFront();
    await page.goto(`${base}/#/account`);
    await page.getByRole('heading', { name: 'Signed-in sessions', level: 2 }).waitFor();
    await expect.poll(() => sessionRows().count()).toBe(4);

    const thisTab = marked('This tab');
    expect(await thisTab.textContent()).toContain('Notes web app');
    // The key npm start made has no name.
    expect(await thisTab.textContent()).toMatch(/Signed in with an unnamed key \(svc_sk_[\w-]+…\)/);
    expect(await thisTab.textContent()).toContain('May read your notes');
    expect(await thisTab.getByRole('button').getAttribute('aria-label')).toBe(
      'Sign out: Notes web app, this tab',
    );
    expect(await marked('Another tab of this browser').textContent()).toContain('Notes web app');
    const thisBrowser = marked('This browser');
    expect(await thisBrowser.textContent()).toContain('A browser sign-in');
    expect(await thisBrowser.textContent()).toContain('Chrome on Linux');
    const claude = row('Claude Desktop');
    expect(await claude.textContent()).toMatch(/Signed in with key “Assistant” \(svc_sk_[\w-]+…\)/);
    expect(await claude.textContent()).toMatch(/Started (just now|1 minute ago)/);
    expect(await claude.getByRole('button').getAttribute('aria-label')).toBe('End session: Claude Desktop');
    // This browser and this tab come first.
    expect(await sessionRows().nth(0).textContent()).toContain('This browser');
    expect(await sessionRows().nth(1).textContent()).toContain('This tab');

    await axe.check('account-sessions');
    expect(axe.findings['account-sessions']).toEqual([]);
    // The section as a person first sees it, for docs/screenshots/account-sessions.png.
    const section = await page.locator('section.sessions').boundingBox();
    if (!section) throw new Error('The sessions section is not shown');
    await page.screenshot({
      path: join(SCREENSHOTS, 'account-sessions-section.png'),
      fullPage: true,
      clip: { x: 0, y: section.y - 24, width: 1280, height: section.height + 48 },
    });
    // Dark, as the system may have it: the marks and buttons keep their contrast.
    await page.emulateMedia({ colorScheme: 'dark' });
    await axe.check('account-sessions-dark');
    expect(axe.findings['account-sessions-dark']).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('fits a phone-sized screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.getByRole('heading', { name: 'Signed-in sessions' }).scrollIntoViewIfNeeded();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await axe.check('account-sessions-phone');
    expect(axe.findings['account-sessions-phone']).toEqual([]);
    await page
      .locator('section.sessions')
      .screenshot({ path: join(SCREENSHOTS, 'account-sessions-phone-section.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('ends the assistant’s session from the keyboard: its row goes and its token is refused', async () => {
    await page.getByRole('heading', { name: 'Signed-in sessions' }).focus();
    let focused = '';
    for (let presses = 0; presses < 20 && focused !== 'End session: Claude Desktop'; presses++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate<string>(`document.activeElement.getAttribute('aria-label') ?? ''`);
    }
    expect(focused).toBe('End session: Claude Desktop');
    await page.keyboard.press('Enter');
    // Asked first, gently, with the answer focused.
    const question = row('Claude Desktop').locator('.confirm');
    await question.waitFor();
    expect(await question.textContent()).toContain('End the session of Claude Desktop?');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('End session');
    await axe.check('account-sessions-confirm');
    expect(axe.findings['account-sessions-confirm']).toEqual([]);
    await page.keyboard.press('Enter');

    await expect.poll(() => row('Claude Desktop').count()).toBe(0);
    expect(await page.locator('.toast').textContent()).toContain('Session ended: Claude Desktop');
    expect(await sessionRows().count()).toBe(3);
    expect(await notesWith(assistant.access_token)).toBe(401);
  });

  it('signs out everywhere else: the other tab must sign in again, this tab and browser stay, and one that may do more is left', async () => {
    // An application that may delete notes for good, which this tab may not.
    archiver = await accessTokenFor({
      baseUrl: base,
      apiKey,
      clientName: 'Archiver',
      resource: `${base}/v1`,
      scope: 'notes:read notes:delete',
      tick: ['notes:delete'],
    });
    expect(archiver.scope).toContain('notes:delete');
    await page.reload();
    await expect.poll(() => sessionRows().count()).toBe(4);

    const otherToken = await tabToken(secondTab);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.locator('.session-confirm').getByRole('button', { name: 'Sign out everywhere else' }).click();
    const outcome = page.locator('.session-outcome');
    await outcome.waitFor();
    expect(await outcome.textContent()).toBe(
      'Ended 1 session. 1 left: it may do more than this session. End it above: you will be asked for that permission first.',
    );
    await expect.poll(() => sessionRows().count()).toBe(3);
    expect(await marked('Another tab of this browser').count()).toBe(0);
    expect(await row('Archiver').count()).toBe(1);
    await axe.check('account-sessions-left');
    expect(axe.findings['account-sessions-left']).toEqual([]);
    expect(await notesWith(otherToken)).toBe(401);
    expect(await notesWith(await tabToken(page))).toBe(200);

    // The other tab finds out at its next call, and asks to sign in; the browser is still signed in.
    await secondTab.bringToFront();
    await secondTab.goto(`${base}/#/`);
    await secondTab.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 20_000 });
    await secondTab.getByRole('button', { name: 'Sign in' }).click();
    await secondTab.getByRole('heading', { name: 'Notes', level: 1 }).waitFor({ timeout: 20_000 });
    expect(await secondTab.locator('#api_key').count()).toBe(0);

    await page.bringToFront();
    await page.reload();
    await expect.poll(() => sessionRows().count()).toBe(4);
  });

  it('asks for the permission in place to end a session that may do more, then ends it', async () => {
    await row('Archiver').getByRole('button', { name: 'End session: Archiver' }).click();
    await row('Archiver').locator('.session-confirm').getByRole('button', { name: 'End session' }).click();
    const asked = row('Archiver').locator('.permission');
    await asked.waitFor();
    expect(await asked.textContent()).toContain('permission to delete notes permanently');
    expect(await asked.textContent()).not.toContain('notes:');
    await axe.check('account-sessions-permission');
    expect(axe.findings['account-sessions-permission']).toEqual([]);
    // No key: the browser is signed in, so the window asks only for the permission.
    // The question answered, the focus is back on the row's button, and the request is next to it.
    await expect
      .poll(() => page.evaluate<string | null>(`document.activeElement.getAttribute('aria-label')`))
      .toBe('End session: Archiver');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe(
      'Give permission and continue',
    );
    const consentWindow = context.waitForEvent('page');
    await page.keyboard.press('Enter');
    const consent = await consentWindow;
    await consent.locator('button[value="approve"]').waitFor();
    expect(await consent.locator('#api_key').count()).toBe(0);
    await consent.click('button[value="approve"]');
    await expect.poll(() => row('Archiver').count(), { timeout: 20_000 }).toBe(0);
    expect(await notesWith(archiver.access_token)).toBe(401);

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(SCREENSHOTS, 'account-sessions-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 360, height: 800 });
    await page.screenshot({ path: join(SCREENSHOTS, 'account-sessions-360.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    console.info(`Screenshots: ${SCREENSHOTS}`);
  });

  it('signs out from its own row: the browser’s sign-in ends, so a new tab asks for the key', async () => {
    await marked('This tab')
      .getByRole('button', { name: /^Sign out/ })
      .click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await service.api('GET', '/v1/account/sessions').then((r) => r.body.sessions)).toEqual([]);

    const fresh = await context.newPage();
    await fresh.goto(`${base}/#/account`);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.locator('#api_key').waitFor();
    await fresh.close();
  });
});

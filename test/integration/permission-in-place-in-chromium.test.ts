import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { launchChromium, screenshotFailedSteps, signIn } from '../support/chromium.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * Giving a permission in place, as a person in Chromium (review of issue 22, findings 2, 7 and 10):
 * the consent window must give it for this tab's own account, or change nothing; the account page
 * makes keys with the permissions chosen. Signed in with the consent page's defaults, so permanent
 * deletion is not given until the person gives it. The browser stays signed in (issue 35), so the
 * consent window asks only "Also allow…?", never for the key; a browser signed in without "Stay
 * signed in" gets the sign-in page there, as before.
 */
let service: InProcessService;
let base: string;
let apiKey: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await page.goto(base);
  await signIn(page, apiKey);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
}, 120_000);

screenshotFailedSteps('permission', () => page);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A note of this account, in the trash, so that deleting it for good needs notes:delete. */
async function trashedNote(title: string): Promise<string> {
  const noteId = crypto.randomUUID();
  await service.api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 1000 },
  });
  await service.api('PATCH', `/v1/notes/${noteId}`, { body: { state: 'trashed' } });
  return noteId;
}

/** Asks to delete the note for good on the trash page: the app then asks for the permission there. */
async function deleteForGood(title: string, tab: Page = page) {
  await tab.goto(`${base}/#/trash`);
  // A fresh page: no confirmation left open by an earlier step.
  await tab.reload();
  const row = tab.locator('.notes li', { hasText: title });
  await row.waitFor();
  await row.getByRole('button', { name: /Delete for good/ }).click();
  await tab.getByLabel('Type delete to confirm').fill('delete');
  await tab.getByRole('button', { name: 'Delete permanently' }).click();
  const asked = row.locator('.permission');
  await asked.waitFor();
  return { row, asked };
}

function tabSession(tab: Page = page): Promise<{ access_token: string; scope: string } | null> {
  return tab.evaluate(`JSON.parse(sessionStorage.getItem('notes.session'))`);
}

/** The consent window of this browser's sign-in: the consent page at once, with no key asked for. */
async function consentOnly(consent: Page): Promise<void> {
  await consent.waitForURL(/\/oauth\/authorize/);
  await consent.locator('button[value="approve"]').waitFor();
  expect(await consent.locator('#api_key').count()).toBe(0);
  expect(await consent.locator('main').textContent()).toContain('It now also asks to');
}

describe('a permission given in place', () => {
  it('refuses a consent window signed in to another account: the tab keeps its own session and says so', async () => {
    const other = await createAccount(
      { dataDir: service.dataDir, info: service.runtime.info } as Parameters<typeof createAccount>[0],
      'Someone else',
    );
    // A browser signed in without "Stay signed in": the consent window asks for a key, as before.
    const ownContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await ownContext.newPage();
    await tab.goto(base);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.fill('#api_key', apiKey);
    await tab.uncheck('#remember');
    await tab.click('button[value="sign_in"]');
    await tab.click('button[value="approve"]');
    await tab.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();

    const noteId = await trashedNote('Kept draft');
    const before = await tabSession(tab);
    const { row, asked } = await deleteForGood('Kept draft', tab);

    const consentWindow = ownContext.waitForEvent('page');
    await asked.getByRole('button', { name: 'Give permission and continue' }).click();
    const consent = await consentWindow;
    await consent.waitForURL(/\/oauth\/authorize/);
    await consent.fill('#api_key', other.api_key);
    await consent.click('button[value="sign_in"]');
    await consent.check('#scope-notes-delete');
    await consent.click('button[value="approve"]');

    const refusal = row.locator('.error');
    await refusal.waitFor({ timeout: 20_000 });
    expect(await refusal.textContent()).toContain('different account');
    expect(await refusal.textContent()).toContain('you are still signed in to your account here');
    // The tab's session is the one it had, or that one refreshed to check it still works.
    expect((await tabSession(tab))?.scope).toBe(before?.scope);
    // Still this account's session: its notes, and the note not deleted.
    expect((await service.api('GET', `/v1/notes/${noteId}`)).status).toBe(200);
    const account = await tab.evaluate<{ account_id: string }>(
      `fetch('/v1/account', { headers: { Authorization: 'Bearer ' + JSON.parse(sessionStorage.getItem('notes.session')).access_token } }).then((r) => r.json())`,
    );
    expect(account.account_id).toBe((await service.api('GET', '/v1/account')).body.account_id);
    await ownContext.close();
  });

  it('ticks the permission asked for, tells the tab what to do, and says why nothing happened when it is unticked', async () => {
    const noteId = await trashedNote('Unticked draft');
    const { row, asked } = await deleteForGood('Unticked draft');
    const consentWindow = context.waitForEvent('page');
    await asked.getByRole('button', { name: 'Give permission and continue' }).click();
    const consent = await consentWindow;
    expect(await asked.textContent()).toContain(
      'check that “delete notes permanently” is ticked, and press Allow',
    );
    await consentOnly(consent);
    expect(await consent.isChecked('#scope-notes-delete')).toBe(true);
    await consent.uncheck('#scope-notes-delete');
    await consent.click('button[value="approve"]');

    const explained = row.locator('.error');
    await explained.waitFor({ timeout: 20_000 });
    expect(await explained.textContent()).toContain(
      'Nothing was done: the permission to delete notes permanently was not given',
    );
    // Not the same request again, and the note is still there.
    expect(await row.locator('.permission').count()).toBe(0);
    expect((await service.api('GET', `/v1/notes/${noteId}`)).status).toBe(200);
  });

  it('makes a key with the permissions ticked on the account page, asking in place for one the session lacks', async () => {
    await page.goto(`${base}/#/account`);
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    const box = (words: string) => page.getByRole('checkbox', { name: words });
    expect(await box('read your notes').isChecked()).toBe(true);
    expect(await box('transcribe recordings and write summaries').isChecked()).toBe(true);
    expect(await box('delete notes permanently').isChecked()).toBe(false);

    await page.fill('#key-name', 'Reader');
    await box('rename, trash and organise your notes').uncheck();
    await box('transcribe recordings and write summaries').uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    const reader = (await page.locator('.secret').textContent({ timeout: 10_000 })) ?? '';
    expect(await scopesOf(reader)).toEqual(['notes:read']);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.fill('#key-name', 'Everything');
    for (const words of [
      'rename, trash and organise your notes',
      'transcribe recordings and write summaries',
      'delete notes permanently',
    ])
      await box(words).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const asked = page.locator('form .permission');
    await asked.waitFor();
    expect(await asked.textContent()).toContain('permission to delete notes permanently');
    const consentWindow = context.waitForEvent('page');
    await asked.getByRole('button', { name: 'Give permission and continue' }).click();
    const consent = await consentWindow;
    await consentOnly(consent);
    await consent.click('button[value="approve"]');
    // Once given, the key is made without another click.
    const everything = (await page.locator('.secret').textContent({ timeout: 20_000 })) ?? '';
    expect(everything).not.toBe(reader);
    expect(await scopesOf(everything)).toEqual([
      'notes:read',
      'notes:write',
      'notes:process',
      'notes:delete',
    ]);
    // Each permission given came as a new session of this tab, which ended the one it replaced:
    // the browser's sign-in lists this one tab, not one per permission.
    const { sessions } = await page.evaluate<{ sessions: SessionSeen[] }>(
      `fetch('/v1/account/sessions', { headers: { Authorization: 'Bearer ' + JSON.parse(sessionStorage.getItem('notes.session')).access_token } }).then((r) => r.json())`,
    );
    const thisBrowser = sessions.find((session) => session.kind === 'browser' && session.current);
    const tabs = sessions.filter((session) => session.browser_session_id === thisBrowser?.session_id);
    expect(tabs.map((session) => [session.client_id, session.current, session.scopes.length])).toEqual([
      ['notes-web', true, 4],
    ]);
  });

  it('gives nothing when the consent window signs the browser out and in to another account, and says this tab was signed out too', async () => {
    const other = await createAccount(
      { dataDir: service.dataDir, info: service.runtime.info } as Parameters<typeof createAccount>[0],
      'Someone else too',
    );
    // A browser of its own (this one's sign-in allowed deleting already), staying signed in.
    const ownContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await ownContext.newPage();
    await tab.goto(base);
    await signIn(tab, apiKey);
    await tab.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    const noteId = await trashedNote('Switched draft');
    const { row, asked } = await deleteForGood('Switched draft', tab);
    const consentWindow = ownContext.waitForEvent('page');
    await asked.getByRole('button', { name: 'Give permission and continue' }).click();
    const consent = await consentWindow;
    await consentOnly(consent);
    // "Not your account?": signing out there signs this browser out, its tabs included.
    await consent.click('button[value="sign_out"]');
    await consent.fill('#api_key', other.api_key);
    await consent.click('button[value="sign_in"]');
    await consent.check('#scope-notes-delete');
    await consent.click('button[value="approve"]');

    const refusal = row.locator('.error');
    await refusal.waitFor({ timeout: 20_000 });
    expect(await refusal.textContent()).toContain('different account');
    expect(await refusal.textContent()).toContain(
      'signed this browser out of your account, this tab included',
    );
    expect(await tabSession(tab)).toBeNull();
    expect((await service.api('GET', `/v1/notes/${noteId}`)).status).toBe(200);
    // The other account was given nothing either: its new session was ended at once.
    const theirs = await fetch(`${base}/v1/account/sessions`, {
      headers: { Authorization: `Bearer ${other.api_key}` },
    });
    expect(((await theirs.json()) as { sessions: unknown[] }).sessions).toEqual([]);
    // The next thing the person does asks them to sign in.
    await tab.getByRole('link', { name: 'Notes', exact: true }).first().click();
    await tab.getByRole('button', { name: 'Sign in' }).waitFor();
    await ownContext.close();
  });
});

interface SessionSeen {
  session_id: string;
  kind: string;
  client_id: string | null;
  scopes: string[];
  browser_session_id: string | null;
  current: boolean;
}

async function scopesOf(secret: string): Promise<string[]> {
  expect(secret).toMatch(/^svc_sk_/);
  const account = await fetch(`${base}/v1/account`, { headers: { Authorization: `Bearer ${secret}` } });
  return ((await account.json()) as { api_key: { scopes: string[] } }).api_key.scopes;
}

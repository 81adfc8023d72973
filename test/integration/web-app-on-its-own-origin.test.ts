import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_PAGE_PATHS, appSecurityHeaders, buildWebApp, webAppConfig } from '../../web/build.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * The web app as AWS serves it: its files from one origin (CloudFront there, a plain static server
 * here, with the same headers and an absolute configuration), the API, the sign-in and the object
 * store on others. Chromium then enforces everything the deployment relies on: the OAuth client's
 * redirect to the app's origin (NOTES_WEB_APP_URL), CORS on the token endpoint, on REST (ETag readable,
 * If-Match allowed) and on the object store, and the Content-Security-Policy's connect-src.
 */
const CHROMIUM = '/usr/bin/chromium';

let app: Server;
let appOrigin: string;
let service: InProcessService;
let base: string;
let apiKey: string;
let browser: Browser;
let page: Page;
const refusedByPolicy: string[] = [];

async function serveApp(): Promise<void> {
  const files = new Map(buildWebApp().map((file) => [file.path, file]));
  app = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    const headers = appSecurityHeaders({
      connect: [base, service.runtime.storageUrl],
      media: [service.runtime.storageUrl],
    });
    if (path === '/app/config.json') {
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
      res.end(JSON.stringify(webAppConfig(base, 'notes-web', 30)));
      return;
    }
    const file = files.get((APP_PAGE_PATHS as readonly string[]).includes(path) ? '/index.html' : path);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': file.contentType });
    res.end(file.body);
  });
  await new Promise<void>((done) => app.listen(0, '127.0.0.1', done));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run node scripts/ensure-deps.mjs test`);
  await serveApp();
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  process.env.NOTES_WEB_APP_URL = appOrigin;
  service = await startInProcess({ storageCorsOrigins: [appOrigin] });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|CORS/i.test(message.text())) refusedByPolicy.push(message.text());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  app?.close();
  delete process.env.NOTES_WEB_APP_URL;
});

describe('the web app on an origin of its own, as on AWS', () => {
  it('signs in at the API’s authorization server and comes back to the app’s origin with a REST token', async () => {
    await page.goto(appOrigin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/oauth/authorize?**`);
    await page.fill('#api_key', apiKey);
    await page.click('button[value="sign_in"]');
    await page.click('button[value="approve"]');
    await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    expect(new URL(page.url()).origin).toBe(appOrigin);
  });

  it('uploads to the object store, reads the transcript and renames the note with the ETag it read, across origins', async () => {
    const speech = await speechFixture('slt', 'wav');
    await page.setInputFiles('#upload-file', speech.file);
    await page.waitForURL(/#\/notes\//, { timeout: 60_000 });
    const noteId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    await page.getByRole('heading', { name: 'Transcript' }).waitFor({ timeout: 180_000 });

    // The ETag is only readable across origins when REST exposes it: the rename must carry it.
    const patch = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Rename', exact: true }).first().click();
    await page.fill('#note-title-input', 'Renamed from another origin');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Renamed from another origin' }).waitFor();
    expect((await patch).headers()['if-match']).toMatch(/^"[\w.-]+"$/);
    const note = await service.api('GET', `/v1/notes/${noteId}`);
    expect(note.body.title).toBe('Renamed from another origin');
  });

  it('signs out through the revocation endpoint, and nothing was refused by CORS or the CSP on the way', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(refusedByPolicy).toEqual([]);
  });
});

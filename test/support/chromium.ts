import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterEach } from 'vitest';

/**
 * A person at the web app, in Debian's headless Chromium driven by playwright-core: launch it, sign
 * in through the service's own pages, and check a page with axe-core.
 */
export const CHROMIUM = '/usr/bin/chromium';

/** `extraArgs`: more command-line switches, e.g. a fake microphone (see fakeMicrophone). */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run node scripts/ensure-deps.mjs test`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio', ...extraArgs],
  });
}

/**
 * Switches that give pages a microphone playing `wav` (PCM WAV; 16 kHz mono 16-bit works) in a loop,
 * with the permission granted without a prompt.
 */
export function fakeMicrophone(wav: string): string[] {
  return [
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}`,
  ];
}

/**
 * Signs in from the app's sign-in page with the account's API key, on the service's sign-in and
 * consent pages. The app asks for permanent deletion only when a person deletes; `allowDeletion`
 * plays an app that asks for it up front (the same request, with notes:delete added to its scope),
 * so the session holds it from the start.
 */
export async function signIn(page: Page, apiKey: string, { allowDeletion = false } = {}): Promise<void> {
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/oauth\/authorize/);
  if (allowDeletion) {
    const url = new URL(page.url());
    url.searchParams.set('scope', `${url.searchParams.get('scope') ?? ''} notes:delete`.trim());
    await page.goto(url.href);
  }
  await page.fill('#api_key', apiKey);
  await page.click('button[value="sign_in"]');
  if (allowDeletion) await page.check('#scope-notes-delete');
  await page.click('button[value="approve"]');
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A/AA and best
 * practice), kept by name; with `screenshots`, a full-page picture of it too.
 */
export function accessibilityChecks(page: Page, screenshots?: string) {
  const findings: Record<string, string[]> = {};
  return {
    findings,
    async check(name: string, screenshot = true): Promise<void> {
      await page.evaluate(await axeSource);
      findings[name] = await page.evaluate<string[]>(`(async () => {
        const result = await axe.run({
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
        });
        return result.violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map((violation) => violation.id + ' at ' + violation.nodes.map((node) => node.target.join(' ')).join(', '));
      })()`);
      if (screenshots && screenshot)
        await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
    },
  };
}

/** An element's text as it is seen: without what only screen readers hear (`.visually-hidden`). */
export function visibleText(element: Locator): Promise<string> {
  return element.evaluate((shown) => {
    const copy = shown.cloneNode(true) as typeof shown;
    for (const hidden of copy.querySelectorAll('.visually-hidden')) hidden.remove();
    return copy.textContent ?? '';
  });
}

/**
 * Keeps a full-page picture of the page at each failed step (in the temporary directory, named after
 * the test file and step), and says where: what a person would have seen when the check failed.
 */
export function screenshotFailedSteps(name: string, pageOf: () => Page | undefined): void {
  afterEach(async (context) => {
    const page = pageOf();
    if (context.task.result?.state !== 'fail' || !page) return;
    const file = join(tmpdir(), `${name}-failure-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    console.error(`Screenshot of the failed step: ${file}`);
  });
}

/**
 * A new Chromium with one desktop-sized page (1280×900), signed in to the web app at `baseUrl` with
 * the API key the local service wrote into `dataDir`, on the notes list; axe-core checks that keep
 * their screenshots in `screenshots` (created) when given.
 */
export async function signedInPage(
  baseUrl: string,
  dataDir: string,
  screenshots?: string,
): Promise<{ browser: Browser; page: Page; axe: ReturnType<typeof accessibilityChecks> }> {
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  if (screenshots) await mkdir(screenshots, { recursive: true });
  await page.goto(baseUrl);
  await signIn(page, (await readFile(join(dataDir, 'api-key'), 'utf8')).trim());
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
  return { browser, page, axe: accessibilityChecks(page, screenshots) };
}

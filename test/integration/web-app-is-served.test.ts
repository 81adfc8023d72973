import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

let service: InProcessService;
let base: string;

beforeAll(async () => {
  // The trash period the app is told is the default one unless the environment says otherwise.
  delete process.env.NOTES_TRASH_DAYS;
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
}, 60_000);

afterAll(async () => {
  await service?.stop();
});

function scriptAndStylesOf(page: string): { script: string; styles: string } {
  const script = /<script type="module" src="([^"]+)"/.exec(page)?.[1];
  const styles = /<link rel="stylesheet" href="([^"]+)"/.exec(page)?.[1];
  if (!script || !styles) throw new Error('the page names no script or stylesheet');
  return { script, styles };
}

describe('the web app as npm start serves it', () => {
  it('answers at / with the page, which is never cached and carries the security headers', async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    // Uploads and playback go to the object store's own origin: allowed, and nothing else.
    expect(csp).toContain(`connect-src 'self' ${service.runtime.storageUrl}`);
    expect(csp).toContain(`media-src 'self' blob: ${service.runtime.storageUrl}`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const page = await response.text();
    expect(page).not.toMatch(/<script>|<style>|style="/); // nothing inline: the CSP would block it
    expect(scriptAndStylesOf(page).script).toMatch(/^\/app\/assets\/app-[A-Z0-9]+\.js$/);
  });

  it('serves the same page at the OAuth callback path, where sign-in returns', async () => {
    const [root, callback] = await Promise.all([
      fetch(`${base}/`).then((response) => response.text()),
      fetch(`${base}/app/callback?code=x&state=y`).then((response) => response.text()),
    ]);
    expect(callback).toBe(root);
  });

  it('serves the script and stylesheet it names, by content hash, cacheable for a year', async () => {
    const page = await (await fetch(`${base}/`)).text();
    const { script, styles } = scriptAndStylesOf(page);
    const js = await fetch(`${base}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await fetch(`${base}${styles}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toContain('.segment');
  });

  it('compresses the script and stylesheet by Accept-Encoding (brotli first, then gzip), saying Vary: Accept-Encoding', async () => {
    const page = await (await fetch(`${base}/`)).text();
    const { script, styles } = scriptAndStylesOf(page);
    // The page itself is under a kilobyte: not worth compressing.
    for (const path of [script, styles]) {
      const plain = await raw(path, undefined);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.headers.vary, path).toBe('Accept-Encoding');
      const brotli = await raw(path, 'gzip, deflate, br');
      expect(brotli.headers['content-encoding'], path).toBe('br');
      expect(brotli.headers.vary, path).toBe('Accept-Encoding');
      expect(Number(brotli.headers['content-length'])).toBe(brotli.body.length);
      expect(brotliDecompressSync(brotli.body).equals(plain.body), path).toBe(true);
      const gzip = await raw(path, 'gzip;q=1, br;q=0');
      expect(gzip.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body), path).toBe(true);
      expect(brotli.body.length, path).toBeLessThan(plain.body.length / 2);
      expect((await raw(path, 'identity')).headers['content-encoding'], path).toBeUndefined();
    }
  });

  it('tells the app where its API and sign-in are, relative to the address the browser used, and the trash period', async () => {
    const response = await fetch(`${base}/app/config.json`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      api_base_url: '/',
      issuer: '/',
      client_id: 'notes-web',
      resource: '/v1',
      scopes: ['notes:read', 'notes:write', 'notes:process'],
      // NOTES_TRASH_DAYS, unset: its default.
      trash_days: 30,
    });
  });

  it('keeps answering 404 for paths that are neither the app nor the API', async () => {
    const response = await fetch(`${base}/app/assets/missing.js`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'No route for GET /app/assets/missing.js' });
  });
});

/** A GET as sent, its body as received: fetch would decode the body and hide the encoding. */
function raw(
  path: string,
  acceptEncoding: string | undefined,
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {};
    request(`${base}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

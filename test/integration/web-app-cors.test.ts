import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/** The app's origin when it is served elsewhere (on AWS: its CloudFront distribution). */
const APP_ORIGIN = 'https://d111111abcdef8.cloudfront.net';
const OTHER_ORIGIN = 'https://evil.example';

let service: InProcessService;
let base: string;
let apiKey: string;

beforeAll(async () => {
  process.env.NOTES_WEB_APP_URL = APP_ORIGIN;
  service = await startInProcess({ workers: false });
  base = service.runtime.apiUrl;
  apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
}, 60_000);

afterAll(async () => {
  await service?.stop();
  delete process.env.NOTES_WEB_APP_URL;
});

function preflight(path: string, origin: string, method = 'PATCH') {
  return fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization, content-type, if-match',
    },
  });
}

describe('REST for the web app on another origin (NOTES_WEB_APP_URL)', () => {
  it('answers the preflight of any REST path for the app origin: its methods, the bearer token, JSON and If-Match', async () => {
    for (const path of [
      '/v1/notes',
      '/v1/notes/3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34/transcription',
      '/v1/ask',
    ]) {
      const response = await preflight(path, APP_ORIGIN);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, DELETE');
      expect(response.headers.get('access-control-allow-headers')).toBe(
        'Authorization, Content-Type, If-Match, If-None-Match',
      );
      expect(response.headers.get('vary')).toBe('Origin');
    }
  });

  it('gives any other origin a preflight answer without CORS headers, which browsers read as a refusal', async () => {
    const response = await preflight('/v1/notes', OTHER_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('lets the app read answers, errors included, and their ETag', async () => {
    const list = await fetch(`${base}/v1/account`, {
      headers: { Authorization: `Bearer ${apiKey}`, Origin: APP_ORIGIN },
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(list.headers.get('access-control-expose-headers')).toContain('ETag');
    const unauthenticated = await fetch(`${base}/v1/notes`, { headers: { Origin: APP_ORIGIN } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const other = await fetch(`${base}/v1/account`, {
      headers: { Authorization: `Bearer ${apiKey}`, Origin: OTHER_ORIGIN },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toBe('Origin');
  });

  it('leaves the MCP and OAuth preflights to their own rules', async () => {
    const token = await preflight('/oauth/token', OTHER_ORIGIN, 'POST');
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
    const mcp = await preflight('/mcp', APP_ORIGIN, 'POST');
    expect(mcp.headers.get('access-control-allow-origin')).toBeNull();
  });
});

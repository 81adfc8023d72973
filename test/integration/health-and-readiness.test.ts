import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../support/local-runtime.ts';

let service: RunningService;

beforeAll(async () => {
  // A synthesizer that is not installed: the service starts, and readiness names what is missing.
  service = await startService({ env: { NOTES_FLITE_PATH: '/nonexistent/bin/flite' } });
}, 120_000);

afterAll(() => service?.stop());

describe('health and readiness probes, without credentials', () => {
  it('/healthz says the process is alive, and nothing else', async () => {
    const response = await fetch(`${service.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ status: 'alive' });
  });

  it('/readyz checks the database, object store, queues, disk and engines, names the one that fails, and the speech engine', async () => {
    const response = await fetch(`${service.baseUrl}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'not_ready',
      checks: {
        database: 'ok',
        object_store: 'ok',
        queues: 'ok',
        disk: 'ok',
        engines: 'not installed: flite (NOTES_FLITE_PATH)',
        speech: 'ok',
      },
      speech: { setting: 'local', engine: 'pocketsphinx' },
      voices: { setting: 'off', state: 'off' },
    });
  });

  it.each(['/healthz', '/readyz'])(
    'HEAD %s answers as GET does, with the same status and headers and no body',
    async (path) => {
      const get = await fetch(`${service.baseUrl}${path}`);
      const getBody = await get.arrayBuffer();
      const head = await fetch(`${service.baseUrl}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(get.status);
      for (const name of ['content-type', 'content-length', 'cache-control']) {
        expect(head.headers.get(name), name).toBe(get.headers.get(name));
      }
      expect(head.headers.get('content-length')).toBe(String(getBody.byteLength));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    },
  );

  it('answers other methods as any unknown route, and a probe path never reaches an account', async () => {
    expect((await fetch(`${service.baseUrl}/healthz`, { method: 'POST' })).status).toBe(404);
    const withKey = await fetch(`${service.baseUrl}/readyz`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect(JSON.stringify(await withKey.json())).not.toContain('acct');
  });
});

describe('readiness with every engine installed', () => {
  let ready: RunningService;
  beforeAll(async () => {
    ready = await startService();
  }, 120_000);
  afterAll(() => ready?.stop());

  it('/readyz answers 200 ready with every check ok', async () => {
    const response = await fetch(`${ready.baseUrl}/readyz`);
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', object_store: 'ok', queues: 'ok', disk: 'ok', engines: 'ok', speech: 'ok' },
      speech: { setting: 'local', engine: 'pocketsphinx' },
      voices: { setting: 'off', state: 'off' },
    });
    expect(response.status).toBe(200);
  });
});

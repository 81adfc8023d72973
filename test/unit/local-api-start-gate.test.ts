import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonResponse } from '../../src/http/response.ts';
import { createApiServer } from '../../src/local/api-gateway-adapter.ts';
import { healthProbes } from '../../src/local/readiness.ts';

let started = false;
const isStarted = () => started;
const server = createApiServer(
  [
    {
      operationId: 'getCurrentAccount',
      method: 'GET',
      path: '/v1/account',
      handler: async () => jsonResponse(200, { account_id: 'a' }),
    },
  ],
  {},
  healthProbes({ always: async () => null }, isStarted),
  isStarted,
);
let base = '';

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('the local API while the runtime is still starting', () => {
  it('answers every route 503 with Retry-After and a detail, is alive, and not yet ready', async () => {
    const early = await fetch(`${base}/v1/account`);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toEqual({ detail: 'The service is starting; retry in a moment.' });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const readiness = await fetch(`${base}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({ status: 'starting' });
  });

  it('serves routes and reports ready once started', async () => {
    started = true;
    expect((await fetch(`${base}/v1/account`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({
      status: 'ready',
      checks: { always: 'ok' },
    });
  });
});

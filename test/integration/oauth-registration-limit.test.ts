import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/oauthRegister.ts';
import { lambdaContext } from '../../src/local/lambda-context.ts';
import { limitedSource, REGISTRATIONS_PER_HOUR } from '../../src/oauth/registration-limit.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';

/**
 * Public registration is limited per client address. The Lambda handler is given API Gateway events
 * whose `sourceIp` is a client on the internet (what API Gateway passes on AWS), against the local
 * runtime's table; loopback clients of the local runtime are reached over HTTP.
 */
let service: InProcessService;

beforeAll(async () => {
  process.env.NOTES_OAUTH_UPSTREAM = 'local';
  service = await startInProcess({ workers: false });
});

afterAll(async () => {
  await service?.stop();
});

const METADATA = JSON.stringify({ client_name: 'Limit test', redirect_uris: ['http://127.0.0.1/cb'] });

async function registerFrom(sourceIp: string, body = METADATA): Promise<APIGatewayProxyStructuredResultV2> {
  const host = new URL(service.runtime.apiUrl).host;
  const event = {
    version: '2.0',
    routeKey: 'POST /oauth/register',
    rawPath: '/oauth/register',
    rawQueryString: '',
    headers: { host, 'content-type': 'application/json' },
    requestContext: {
      domainName: host,
      http: { method: 'POST', path: '/oauth/register', protocol: 'HTTP/1.1', sourceIp, userAgent: 'test' },
      requestId: randomUUID(),
    },
    body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  return (await handler(
    event,
    lambdaContext('oauthRegister', event.requestContext.requestId),
  )) as APIGatewayProxyStructuredResultV2;
}

/**
 * The limit counts per clock hour: a test that began in the last seconds of one would count into two.
 * It then starts with the next hour (a wait of seconds at most, not an assertion on time).
 */
async function awayFromTheHoursEnd(): Promise<void> {
  const left = 3600 - (Math.floor(Date.now() / 1000) % 3600);
  if (left < 30) await sleep(left * 1000 + 200);
}

describe('the limit on client registrations per address', () => {
  beforeEach(awayFromTheHoursEnd);

  it(`registers ${REGISTRATIONS_PER_HOUR} clients an hour from one address, then answers 429 with Retry-After and an OAuth error`, async () => {
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) {
      expect((await registerFrom('198.51.100.7')).statusCode).toBe(201);
    }
    const refused = await registerFrom('198.51.100.7');
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers?.['Retry-After']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(JSON.parse(String(refused.body))).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/Too many client registrations from this address/),
    });
    // Another address is not held back by it.
    expect((await registerFrom('198.51.100.8')).statusCode).toBe(201);
  });

  it('counts an IPv6 client per /64, and does not count refused registrations', async () => {
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) {
      expect((await registerFrom(`2001:db8:1:2::${(i + 1).toString(16)}`)).statusCode).toBe(201);
    }
    expect((await registerFrom('2001:db8:1:2:ffff::1')).statusCode).toBe(429);
    expect((await registerFrom('2001:db8:1:3::1')).statusCode).toBe(201);

    const bad = JSON.stringify({ redirect_uris: ['javascript:alert(1)'] });
    for (let i = 0; i < REGISTRATIONS_PER_HOUR + 5; i++) {
      expect((await registerFrom('203.0.113.9', bad)).statusCode).toBe(400);
    }
    expect((await registerFrom('203.0.113.9')).statusCode).toBe(201);
  });

  it('does not limit loopback clients of the local runtime', async () => {
    for (let i = 0; i <= REGISTRATIONS_PER_HOUR; i++) {
      const response = await fetch(`${service.runtime.apiUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: METADATA,
      });
      expect(response.status).toBe(201);
    }
    expect(limitedSource('127.0.0.1')).toBeNull();
    expect(limitedSource('::1')).toBeNull();
    expect(limitedSource('::ffff:127.0.0.1')).toBeNull();
    expect(limitedSource('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(limitedSource('2001:DB8:0:0:1::7')).toBe('2001:db8:0:0::/64');
  });
});

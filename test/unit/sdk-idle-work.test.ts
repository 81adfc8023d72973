import { Readable } from 'node:stream';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { awsClientConfig, localAwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { createDocumentClient } from '../../src/adapters/dynamodb/client.ts';
import { profilingOptions } from '../../src/adapters/speech/threads/thread-entry.ts';

const CREDENTIALS = {
  accessKeyId: 'AKIDTESTIDLEWORK0000',
  secretAccessKey: 'secret-of-the-idle-work-test-000000000',
};

interface SentRequest {
  hostname: string;
  port?: number;
  headers: Record<string, string>;
}

/** A request handler that records what the SDK would send and answers with an empty GetItem. */
function recordingHandler(sent: SentRequest[]) {
  return {
    handle: async (request: SentRequest) => {
      sent.push(request);
      return {
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from('{}')]),
        },
      };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
}

async function oneGet(config: ReturnType<typeof awsClientConfig>) {
  const sent: SentRequest[] = [];
  const db = createDocumentClient({ ...config, requestHandler: recordingHandler(sent) });
  await db.send(new GetCommand({ TableName: 'notes', Key: { pk: 'a', sk: 'b' } }));
  return { request: sent[0], middleware: db.middlewareStack.identify().join('\n') };
}

describe('the DynamoDB client does no work nobody uses', () => {
  it('sends a local stand-in no user agent, to the fixed endpoint, still signed', async () => {
    const { request, middleware } = await oneGet(localAwsClientConfig('http://127.0.0.1:8123', CREDENTIALS));
    expect(request?.hostname).toBe('127.0.0.1');
    expect(request?.port).toBe(8123);
    expect(Object.keys(request?.headers ?? {})).not.toContain('x-amz-user-agent');
    expect(request?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTESTIDLEWORK0000\//);
    expect(middleware).not.toContain('loggerMiddleware');
  });

  it('keeps the user agent for AWS, where it is read, and drops only the unused logger there', async () => {
    const { request, middleware } = await oneGet({
      ...awsClientConfig('eu-west-1'),
      credentials: CREDENTIALS,
    });
    expect(request?.hostname).toBe('dynamodb.eu-west-1.amazonaws.com');
    expect(request?.headers['x-amz-user-agent']).toMatch(/aws-sdk-js/);
    expect(middleware).not.toContain('loggerMiddleware');
  });
});

describe('a profiled process profiles its threads too', () => {
  it('passes its CPU-profiling options to a thread, and no other option', () => {
    expect(
      profilingOptions([
        '--import',
        'tsx',
        '--cpu-prof',
        '--cpu-prof-dir=/tmp/p',
        '--cpu-prof-interval=500',
        '--inspect',
      ]),
    ).toEqual(['--cpu-prof', '--cpu-prof-dir=/tmp/p', '--cpu-prof-interval=500']);
    expect(profilingOptions(['--import', 'tsx'])).toEqual([]);
  });
});

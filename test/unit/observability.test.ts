/**
 * What every handler's observability middlewares print and load: metric lines only when an invocation
 * counted something, and the X-Ray SDK only on Lambda with tracing on.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { repositoryRoot } from '../../lib/paths.ts';

type Observability = typeof import('../../src/observability.ts');
let observability: Observability;

beforeAll(async () => {
  // The suite turns metrics off (vitest.config.ts); the module reads the setting when it is imported.
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.resetModules();
  observability = await import('../../src/observability.ts');
});

afterEach(() => {
  vi.restoreAllMocks();
});

const context = { functionName: 'notes-test-getNote', awsRequestId: 'request-1' } as Context;

/** Runs one invocation of a handler wrapped like ours and returns what it wrote to stdout and stderr. */
async function printedBy(work: () => Promise<void>): Promise<string> {
  const handler = middy<unknown, string>()
    .use(observability.observed())
    .handler(async () => {
      await work();
      return 'ok';
    });
  let printed = '';
  const capture = (chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await handler({}, context);
  } finally {
    vi.restoreAllMocks();
  }
  return printed;
}

describe('metrics of an invocation', () => {
  it('an invocation that counts nothing prints nothing (no "No application metrics to publish")', async () => {
    expect(await printedBy(async () => {})).toBe('');
  });

  it('an invocation that counts something publishes it as one embedded-metric-format line', async () => {
    const printed = await printedBy(() => observability.countOutcome('upload', 'stored'));
    const lines = printed.trim().split('\n');
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0] as string);
    expect(emf._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'upload_stored', Unit: 'Count' }]);
    expect(emf.upload_stored).toBe(1);
  });

  it('what one invocation counted is not published again by the next one', async () => {
    await printedBy(() => observability.countOutcome('upload', 'stored'));
    expect(await printedBy(async () => {})).toBe('');
  });
});

describe('tracing', () => {
  it('is on only on Lambda, unless POWERTOOLS_TRACE_ENABLED is false', () => {
    expect(observability.tracingEnabled({})).toBe(false);
    expect(observability.tracingEnabled({ AWS_LAMBDA_FUNCTION_NAME: 'f' })).toBe(true);
    expect(
      observability.tracingEnabled({ AWS_LAMBDA_FUNCTION_NAME: 'f', POWERTOOLS_TRACE_ENABLED: 'true' }),
    ).toBe(true);
    expect(
      observability.tracingEnabled({ AWS_LAMBDA_FUNCTION_NAME: 'f', POWERTOOLS_TRACE_ENABLED: 'False' }),
    ).toBe(false);
  });

  /** How many files of the X-Ray SDK a fresh Node process has loaded after importing the module. */
  async function xraySdkFilesLoaded(env: Record<string, string>): Promise<number> {
    const script = `await import('./src/observability.ts');
const { createRequire } = await import('node:module');
const loaded = Object.keys(createRequire(import.meta.url)('node:module')._cache);
console.log(loaded.filter((file) => file.includes('aws-xray-sdk-core')).length);`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: repositoryRoot,
        env: { PATH: process.env.PATH ?? '', POWERTOOLS_SERVICE_NAME: 'notes', ...env },
      },
    );
    return Number(stdout.trim());
  }

  it('with tracing off the X-Ray SDK is not loaded; on Lambda with tracing on it is', async () => {
    expect(await xraySdkFilesLoaded({})).toBe(0);
    expect(
      await xraySdkFilesLoaded({ AWS_LAMBDA_FUNCTION_NAME: 'notes-test', POWERTOOLS_TRACE_ENABLED: 'false' }),
    ).toBe(0);
    expect(await xraySdkFilesLoaded({ AWS_LAMBDA_FUNCTION_NAME: 'notes-test' })).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { sdkNodeNoticeOnce } from '../../src/local/sdk-node-notice.ts';
import { startBanner } from '../../src/local/start-banner.ts';
import { logFormatOf, textLine } from '../../src/logging.ts';

describe('log lines for a person', () => {
  it('is text on a terminal of one’s own and JSON on Lambda, in the container, or when asked', () => {
    expect(logFormatOf({})).toBe('text');
    expect(logFormatOf({ AWS_LAMBDA_FUNCTION_NAME: 'notes-dev-getNote' })).toBe('json');
    expect(logFormatOf({ NOTES_LOG_FORMAT: 'json' })).toBe('json');
    expect(logFormatOf({ NOTES_LOG_FORMAT: 'TEXT', AWS_LAMBDA_FUNCTION_NAME: 'x' })).toBe('text');
  });

  it('shows the time, the level when not routine, the message and the fields, without the machine’s keys', () => {
    const timestamp = '2027-01-05T20:05:13.123Z';
    const local = new Date(timestamp).toTimeString().slice(0, 8);
    expect(
      textLine({
        level: 'INFO',
        message: 'request',
        timestamp,
        service: 'notes',
        sampling_rate: 0,
        route: 'updateNote',
        status: 200,
        requestId: 'abc',
      }),
    ).toBe(`${local} request route=updateNote status=200`);
    expect(
      textLine({
        level: 'ERROR',
        message: 'could not reconcile a job',
        timestamp,
        kind: 'insights',
        why: 'two words',
      }),
    ).toBe(`${local} error: could not reconcile a job kind=insights why="two words"`);
  });
});

describe('the start banner', () => {
  const facts = {
    apiUrl: 'http://127.0.0.1:8787',
    storageUrl: 'http://127.0.0.1:8788',
    dataDir: '/home/ada/notes/.notes-data',
    keyFile: '/home/ada/notes/.notes-data/api-key',
    newApiKey: 'svc_sk_example',
    transcribing: 4,
    speech: 'Whisper base.en',
    speakers: 'voice model',
  };

  it('leads with the web app and the new key, and shows paths inside the working directory relative', () => {
    const lines = startBanner(facts, '/home/ada/notes').split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'Notes service is running.',
      '',
      '  Open http://127.0.0.1:8787/ in a browser and sign in with this key:',
      '',
      '      svc_sk_example',
    ]);
    expect(lines).toContain(
      '  CLI:  export NOTES_BASE_URL=http://127.0.0.1:8787 NOTES_API_KEY=$(cat .notes-data/api-key)',
    );
  });

  it('names the key file on later starts, never a key', () => {
    const banner = startBanner({ ...facts, newApiKey: null }, '/elsewhere');
    expect(banner).toContain(
      '  Open http://127.0.0.1:8787/ in a browser and sign in with the key in /home/ada/notes/.notes-data/api-key.',
    );
    expect(banner).not.toContain('svc_sk_');
  });
});

describe("the AWS SDK's warning about Node's version", () => {
  it('is said once, on Node older than 22, and turned off for what inherits the environment', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(sdkNodeNoticeOnce(env, 'v20.20.2')).toMatch(/^Node v20\.20\.2: runs as it is/);
    expect(env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true');
    expect(sdkNodeNoticeOnce(env, 'v20.20.2')).toBeNull();
    expect(sdkNodeNoticeOnce({}, 'v22.12.0')).toBeNull();
  });
});

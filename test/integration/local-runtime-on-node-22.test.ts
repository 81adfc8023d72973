import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { ensureLambdaNode } from '../support/node22.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * `npm start` supports Node 20.19 and Node 22 (docs/self-hosting.md, "Requirements"): the rest of the suite runs the
 * local runtime on the Node that runs the tests (20 in CI); here the same runtime runs on Node 22 from
 * the npm registry and takes a recording from upload to transcript, the native-addon emulators included.
 */
let service: RunningService;
let api: Api;
let node22: string;

beforeAll(async () => {
  node22 = await ensureLambdaNode();
  service = await startService({ node: node22 });
  api = client(service.baseUrl, service.apiKey);
}, 300_000);
afterAll(() => service?.stop());

describe('the local runtime on Node 22', () => {
  it('transcribes an uploaded recording end to end', async () => {
    const noteId = randomUUID();
    const { file, contentType } = await speechFixture('slt', 'wav');
    await submitAndUpload(api, noteId, file, contentType, 'On Node 22');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    expect(String(final.body.full_text).split(/\s+/).length).toBeGreaterThan(5);
    // The process that answered is the Node 22 binary.
    expect(await realpath(`/proc/${service.info.pid}/exe`)).toBe(await realpath(node22));
  });
});

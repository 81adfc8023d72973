import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, type UploadTarget } from '../support/transcribe.ts';

let service: InProcessService;
let api: Api;

beforeAll(async () => {
  // The runtime in this process: this test's thread is the API's thread.
  service = await startInProcess();
  api = service.api;
});
afterAll(() => service?.stop());

/** Holds this thread for `ms` without returning to its event loop. */
function holdThisThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Whether the object store's files (its own thread writes them) hold the note's transcript. */
function transcriptStored(noteId: string): boolean {
  const files = readdirSync(join(service.dataDir, 's3'), { recursive: true, encoding: 'utf8' });
  return files.some((file) => file.includes(noteId) && file.includes('transcription.json'));
}

describe("the queue workers run off the API's thread", () => {
  it("take an upload and transcribe it while the API's thread never returns to its event loop, and the API then serves the transcript", async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    const size = statSync(file).size;
    const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'Held API thread', content_type: contentType, size_bytes: size },
    });
    expect(submitted.status).toBe(202);
    const upload = submitted.body.upload as UploadTarget;

    // From here until the transcript is stored, this thread (the API's) does not return to its event
    // loop: had a handler to run here, the upload's event would wait for it and nothing would be
    // transcribed. The upload goes to the object store (its own thread) from another process.
    const headers = Object.entries(upload.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const put = spawnSync(
      'curl',
      [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-X',
        upload.method,
        ...headers,
        '--data-binary',
        `@${file}`,
        upload.url,
      ],
      { encoding: 'utf8' },
    );
    expect(put.stdout).toBe('200');
    let stored = false;
    // Bounded, so that a failure ends the test instead of hanging it (no timing is asserted).
    for (let look = 0; look < 1_800 && !stored; look += 1) {
      holdThisThread(100);
      stored = transcriptStored(noteId);
    }
    expect(stored).toBe(true);

    // Back on the event loop: the API answers with what the workers made meanwhile.
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status).toBe(200);
    expect(JSON.stringify(final.body)).toMatch(/\w+ \w+ \w+/);
  });
});

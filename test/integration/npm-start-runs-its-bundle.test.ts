import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/** What the launcher says when it runs the sources instead of the bundle (scripts/start.mjs). */
const RAN_THE_SOURCES = 'no start-up bundle of these sources yet';

let service: RunningService;
let api: Api;

beforeAll(async () => {
  // What the launcher's background build does after an edit, here in the foreground.
  const build = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'local-server-bundle.mjs')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  expect(build.status, build.stderr).toBe(0);
  service = await startService({ launcher: 'npm-start' });
  api = client(service.baseUrl, (await createAccount(service, 'bundle')).api_key);
}, 360_000);
afterAll(() => service?.stop());

describe('npm start, once its start-up bundle is made', () => {
  it('runs the bundle, not the sources', () => {
    expect(service.output()).not.toContain(RAN_THE_SOURCES);
    expect(service.output()).toContain('Notes service is running');
  });

  it('transcribes a recording through the bundled emulator and speech threads', async () => {
    const fixture = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, fixture.file, fixture.contentType, 'from the bundle');
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status).toBe(200);
    const transcription = final.body as {
      full_text: string;
      conversation_segments: Array<{ speaker: string }>;
    };
    expect(wordOverlap(fixture.script, transcription.full_text)).toBeGreaterThanOrEqual(0.6);
    // One voice: the diarizer (a worker thread of the bundle) heard one speaker.
    expect(new Set(transcription.conversation_segments.map((segment) => segment.speaker))).toEqual(
      new Set(['Speaker 1']),
    );
  });

  it('keeps no other process running once idle (esbuild ends after building the web app)', async () => {
    // After the transcription above: its ffmpeg and recognisers are gone too. Polled briefly, since
    // a child that has just been told to exit may take a moment to go.
    let children = childProcesses(service.info.pid);
    for (let tries = 0; children.length > 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      children = childProcesses(service.info.pid);
    }
    expect(children).toEqual([]);
  });

  it('answers an unknown key with 401 and a detail, as the sources do', async () => {
    const response = await client(service.baseUrl, 'svc_sk_not-a-key')('GET', '/v1/account');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ detail: expect.any(String) });
  });
});

/** `pid (command)` of each live (not zombie) process whose parent is `parent`, from /proc. */
function childProcesses(parent: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so split after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === parent && state !== 'Z') found.push(stat.slice(0, stat.lastIndexOf(')') + 1));
  }
  return found;
}

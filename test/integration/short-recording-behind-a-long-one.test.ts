import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConversations, fixtureNamed } from '../fixtures/conversations/generate.ts';
import { FFMPEG_QUIET, run } from '../fixtures/fixture-files.ts';
import { type Api, type ApiResponse, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { submitAndUpload } from '../support/transcribe.ts';

/**
 * Recordings take turns at the recognisers chunk by chunk (issue 39): a short recording submitted
 * while a long one is recognised waits for one chunk of it, saying so on its job, and is done long
 * before the long one, which still finishes. Over real HTTP on the runtime as `npm start` runs it,
 * pocketsphinx in 30 s chunks; the long recording has three chunks per recogniser slot (one per
 * core), so it still holds every slot when the short one arrives, whatever the machine.
 */
const CHUNK_SECONDS = 30;

/** The CLI's line for a job (cli/src/poll.mjs), loaded as the CLI runs it: plain JavaScript, untyped. */
const { describeJob } = (await import(new URL('../../cli/src/poll.mjs', import.meta.url).href)) as {
  describeJob(job: Record<string, unknown>, now?: number): string;
};
const POLL_MS = 100;

let service: RunningService;
let api: Api;
let workDir: string;
let long: string;
let short: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'notes-turns-'));
  const conversation = fixtureNamed(await ensureConversations(), 'two-speakers');
  const longSeconds = CHUNK_SECONDS * (3 * availableParallelism() + 1);
  long = join(workDir, 'long.wav');
  short = join(workDir, 'short.wav');
  await run('ffmpeg', [
    ...FFMPEG_QUIET,
    ...['-stream_loop', '-1', '-i', conversation.audio, '-t', String(longSeconds), '-c', 'copy', long],
  ]);
  await run('ffmpeg', [...FFMPEG_QUIET, ...['-i', conversation.audio, '-t', '12', '-c', 'copy', short]]);
  service = await startService({
    env: { NOTES_SPEECH_ENGINE: 'local', NOTES_RECOGNIZER_CHUNK_SECONDS: String(CHUNK_SECONDS) },
  });
  api = client(service.baseUrl, service.apiKey);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** Every distinct job status a poller saw until the transcript was served, and when it was. */
async function watch(noteId: string) {
  const seen: ApiResponse[] = [];
  const deadline = Date.now() + 600_000;
  for (;;) {
    const response = await api('GET', `/v1/notes/${noteId}/transcription`);
    if (response.status !== 202) return { final: response, seen, doneAt: performance.now() };
    seen.push(response);
    if (Date.now() > deadline) throw new Error(`still 202: ${JSON.stringify(response.body)}`);
    await sleep(POLL_MS);
  }
}

describe('a short recording does not wait behind a long one', () => {
  it('waits for one chunk at most, says on its job that it waits and for how many recordings, and is done before the long one, which still finishes', async () => {
    const longId = randomUUID();
    await submitAndUpload(api, longId, long, 'audio/wav', 'A long meeting');
    const longWatched = watch(longId);
    for (;;) {
      const { body } = await api('GET', `/v1/notes/${longId}/transcription`);
      if (body.stage === 'recognizing') break;
      await sleep(POLL_MS);
    }
    const shortId = randomUUID();
    await submitAndUpload(api, shortId, short, 'audio/wav', 'A voice memo');
    const shortWatched = await watch(shortId);
    const longDone = await longWatched;

    expect(shortWatched.final.status, JSON.stringify(shortWatched.final.body)).toBe(200);
    expect(longDone.final.status, JSON.stringify(longDone.final.body)).toBe(200);
    expect(shortWatched.doneAt).toBeLessThan(longDone.doneAt);
    expect(String(longDone.final.body.full_text).split(/\s+/).length).toBeGreaterThan(100);

    const waiting = shortWatched.seen.filter((response) => response.body.stage === 'waiting');
    expect(waiting.length, JSON.stringify(shortWatched.seen.map((r) => r.body.stage))).toBeGreaterThan(0);
    for (const { body } of waiting) {
      expect(body.status).toBe('processing');
      expect(body.waiting).toMatchObject({ recordings_ahead: 1 });
    }
    // The CLI says the same in words.
    expect(describeJob(waiting[0]?.body ?? {})).toMatch(/^processing, stage waiting, 1 recording ahead/);
    // Every status seen after the wait is recognition or later: the wait came before it, once.
    const stages = shortWatched.seen.map((response) => String(response.body.stage));
    const firstRecognizing = stages.indexOf('recognizing');
    if (firstRecognizing >= 0) expect(stages.slice(firstRecognizing)).not.toContain('waiting');
  }, 600_000);
});

describe('the CLI says what a waiting transcription waits for', () => {
  it('names the recordings ahead and, when the service estimates it, the start in whole minutes', () => {
    const now = 1_000_000;
    const job = { status: 'processing', stage: 'waiting' };
    expect(describeJob({ ...job, waiting: { recordings_ahead: 2 } }, now)).toBe(
      'processing, stage waiting, 2 recordings ahead',
    );
    expect(
      describeJob({ ...job, waiting: { recordings_ahead: 1, estimated_start_at: now + 170_000 } }, now),
    ).toBe('processing, stage waiting, 1 recording ahead, starts in about 3 min');
    expect(
      describeJob({ ...job, waiting: { recordings_ahead: 1, estimated_start_at: now + 20_000 } }, now),
    ).toBe('processing, stage waiting, 1 recording ahead, starts within a minute');
  });
});

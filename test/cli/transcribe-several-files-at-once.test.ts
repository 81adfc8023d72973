import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { notAudioFixture, speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { type CliResult, describeRun, runCli } from './run-cli.ts';

let service: RunningService;
let env: Record<string, string>;
let scratch: string;

beforeAll(async () => {
  [service] = await Promise.all([startService(), speechFixture('slt', 'wav')]);
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
  scratch = await mkdtemp(join(tmpdir(), 'notes-cli-many-'));
});
afterAll(async () => {
  await service?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface FileLine {
  file: string;
  note_id: string;
  full_text?: string;
  status?: string;
  error?: { exit_code: number; message: string };
}

/**
 * stdout as JSON Lines (one object per line, nothing else), put back in the order of `files`: the CLI
 * prints each line as its file finishes.
 */
function jsonLines(result: CliResult, files: string[]): FileLine[] {
  let lines: FileLine[];
  try {
    lines = result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as FileLine);
  } catch {
    throw new Error(`stdout is not JSON Lines:\n${describeRun(result)}`);
  }
  expect(lines.map((line) => line.file).sort(), describeRun(result)).toEqual([...files].sort());
  return files.map((file) => lines.find((line) => line.file === file) as FileLine);
}

describe('notes transcribe with several files', () => {
  it('--wait with two recordings makes two notes and prints one transcript line per file', async () => {
    const slt = await speechFixture('slt', 'wav');
    const rms = await speechFixture('rms', 'mp3');
    const result = await runCli(['transcribe', slt.file, rms.file, '--wait', '--timeout', '300'], env, {
      timeoutMs: 330_000,
    });
    expect(result.code, describeRun(result)).toBe(0);
    const [first, second] = jsonLines(result, [slt.file, rms.file]);
    expect(first?.note_id).not.toBe(second?.note_id);
    expect(wordOverlap(slt.script, first?.full_text ?? '')).toBeGreaterThanOrEqual(0.6);
    expect(wordOverlap(rms.script, second?.full_text ?? '')).toBeGreaterThanOrEqual(0.6);
    // Progress for each file on stderr.
    expect(result.stderr).toMatch(/Uploaded slt-25s\.wav/);
    expect(result.stderr).toMatch(/Uploaded rms-25s\.mp3/);
    expect(result.stderr.match(/ready after \d+ s/g)).toHaveLength(2);

    // Each is its own note, readable through the CLI.
    for (const line of [first, second]) {
      const read = await runCli(['transcription', 'get', line?.note_id ?? ''], env);
      expect(read.code, describeRun(read)).toBe(0);
      expect(JSON.parse(read.stdout).full_text).toBe(line?.full_text);
    }
  });

  it('--wait with a file that is not audio among two recordings still transcribes the two, reports the bad one on its own line and exits 5', async () => {
    const slt = await speechFixture('slt', 'wav');
    const bad = join(scratch, 'not-a-recording.mp3');
    await copyFile(await notAudioFixture(), bad);
    const missing = join(scratch, 'never-recorded.wav');
    const rms = await speechFixture('rms', 'wav');
    const result = await runCli(
      ['transcribe', slt.file, bad, missing, rms.file, '--wait', '--timeout', '300'],
      env,
      { timeoutMs: 330_000 },
    );
    // The first failure in the order given decides: the job that ended failed (5), not the missing file (2).
    expect(result.code, describeRun(result)).toBe(5);
    const [good1, failed, unread, good2] = jsonLines(result, [slt.file, bad, missing, rms.file]);
    expect(wordOverlap(slt.script, good1?.full_text ?? '')).toBeGreaterThanOrEqual(0.6);
    expect(wordOverlap(rms.script, good2?.full_text ?? '')).toBeGreaterThanOrEqual(0.6);
    expect(failed?.error?.exit_code).toBe(5);
    expect(failed?.error?.message).toMatch(/failed/);
    expect(unread?.error).toEqual({ exit_code: 2, message: expect.stringMatching(/cannot read .*ENOENT/) });
    expect(result.stderr).toMatch(/notes: 2 of 4 files failed\./);
    expect(`${result.stdout}${result.stderr}`).not.toContain(service.apiKey);
  });

  it('without --wait prints one job status line per file, and refuses --note-id with several files before sending anything', async () => {
    const slt = await speechFixture('slt', 'wav');
    const rms = await speechFixture('rms', 'wav');
    const refused = await runCli(['transcribe', slt.file, rms.file, '--note-id', crypto.randomUUID()], env);
    expect(refused.code, describeRun(refused)).toBe(2);
    expect(refused.stderr).toMatch(/--note-id and --title name one note/);
    expect(refused.stdout).toBe('');

    const result = await runCli(['transcribe', slt.file, rms.file], env);
    expect(result.code, describeRun(result)).toBe(0);
    for (const line of jsonLines(result, [slt.file, rms.file])) {
      expect(line.status).toMatch(/^(queued|processing|completed)$/);
      expect(line.note_id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WHISPER_MODELS } from '../../src/adapters/speech/whisper/whisper-models.ts';
import { type CliResult, runNode } from './run-cli.ts';

/**
 * `npm run models`, run as a child process the way npm runs it (tsx), against a local data directory
 * and a mirror on loopback. The catalogue pins the published models' hashes, which a fake file cannot
 * match: a fetch here ends in the checksum refusal, which is what is checked.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const SCRIPT = join(REPO_ROOT, 'src', 'local', 'cli', 'models.ts');
const fakeBytes = randomBytes(200 * 1024);

/** `npm run models -- <args>`: the script through tsx, with this process's Node. */
function runModels(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runNode(process.execPath, ['--import', 'tsx', SCRIPT, ...args], env, {
    timeoutMs: 60_000,
    cwd: REPO_ROOT,
  });
}

const requested: string[] = [];
let server: Server;
let mirror: string;
let dataDir: string;

beforeAll(async () => {
  // A mirror that serves the same fake bytes under every model's name.
  server = createServer((request, response) => {
    requested.push(request.url ?? '');
    if (!/^\/mirror\/ggml-[\w.]+\.bin$/.test(request.url ?? '')) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-length': String(fakeBytes.length) }).end(fakeBytes);
  });
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mirror`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
});
beforeEach(async () => {
  requested.length = 0;
  dataDir = await mkdtemp(join(tmpdir(), 'notes-models-cli-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

describe('npm run models', () => {
  it('lists every known model with its size, marking the ones present and the default', async () => {
    await mkdir(join(dataDir, 'models'));
    await writeFile(join(dataDir, 'models', 'ggml-tiny.en.bin'), fakeBytes);
    const run = await runModels(['list'], { NOTES_DATA_DIR: dataDir, NOTES_WHISPER_MODEL_URL: mirror });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([
      ...WHISPER_MODELS.map((model) => model.name),
      'wespeaker-resnet34-lm',
    ]);
    expect(lines[0]).toMatch(/^tiny\.en\s+75 MiB\s+English only\s+present: .*ggml-tiny\.en\.bin$/);
    expect(lines.find((line) => line.startsWith('base.en '))).toMatch(/142 MiB .*not present\s+\(default\)$/);
    expect(lines.find((line) => line.startsWith('small '))).toMatch(/466 MiB\s+multilingual\s+not present$/);
    expect(lines.at(-1)).toMatch(
      /^wespeaker-resnet34-lm\s+25 MiB\s+voices \(speakers\)\s+not present\s+\(default\)$/,
    );
    expect(requested).toEqual([]);
  });

  it('refuses an unknown model name with exit 2, naming the known ones', async () => {
    const run = await runModels(['fetch', 'huge'], {
      NOTES_DATA_DIR: dataDir,
      NOTES_WHISPER_MODEL_URL: mirror,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `known ones are ${[...WHISPER_MODELS.map((model) => model.name), 'wespeaker-resnet34-lm'].join(', ')}`,
    );
    expect(run.stdout).toBe('');
    expect(requested).toEqual([]);
  });

  it('prints its usage and exits 2 without a command it knows', async () => {
    for (const args of [[], ['download', 'base.en'], ['fetch']]) {
      const run = await runModels(args, { NOTES_DATA_DIR: dataDir });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^usage: npm run models -- list$/m);
    }
  });

  it('fetches from NOTES_WHISPER_MODEL_URL and, the bytes not being the pinned model, exits 1 with a checksum message and no file left', async () => {
    const run = await runModels(['fetch', 'tiny.en'], {
      NOTES_DATA_DIR: dataDir,
      NOTES_WHISPER_MODEL_URL: `${mirror}/`,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(requested).toEqual(['/mirror/ggml-tiny.en.bin']);
    // Not a terminal: progress comes as whole lines, the last one at 100 %.
    expect(run.stderr).toMatch(/^tiny\.en: 0\.2 MiB of 0\.2 MiB \(100 %\)$/m);
    expect(run.stderr).toMatch(
      /is not the published whisper model tiny\.en: its SHA-256 checksum is [0-9a-f]{64}/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
    expect(await readdir(join(dataDir, 'models'))).toEqual([]);
  });
});

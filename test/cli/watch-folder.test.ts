import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { microphoneFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { CLI_BIN, cliNode, describeRun, runCli } from './run-cli.ts';

/**
 * `notes watch <folder>` against the real local service: real files dropped into a real folder, the
 * notes read back over REST. The recording is one spoken sentence (about 6 s); each test makes its
 * own variants of it (one sample changed), since the watcher recognises a recording by its bytes.
 */
let service: RunningService;
let env: Record<string, string>;
let scratch: string;
let clip: { file: string; sentence: string };
let variants = 0;

/** Settled after 2 s unchanged, rescanned every 2 s: fast enough for tests. */
const FAST = ['--settle-seconds', '2', '--poll-seconds', '2'];

beforeAll(async () => {
  // Fixed ports, so that the service stopped and started again in the outage test keeps its URLs.
  const [apiPort, storagePort] = [await freePort(), await freePort()];
  [service, clip] = await Promise.all([
    startService({ env: { PORT: String(apiPort), NOTES_STORAGE_PORT: String(storagePort) } }),
    microphoneFixture(),
  ]);
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
  scratch = await mkdtemp(join(tmpdir(), 'notes-cli-watch-'));
});
afterAll(async () => {
  await service?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A watched folder and a configuration directory (where the state file goes) of a test's own. */
async function setup(name: string): Promise<{ folder: string; env: Record<string, string> }> {
  const folder = join(scratch, name);
  await mkdir(folder, { recursive: true });
  return { folder, env: { ...env, XDG_CONFIG_HOME: join(scratch, `${name}-config`) } };
}

/** The clip with one sample changed: the same speech, other bytes (another SHA-256). */
async function recordingBytes(): Promise<Buffer> {
  const bytes = await readFile(clip.file);
  variants += 1;
  // The low byte of the last sample (silence padding): inaudible.
  bytes[bytes.length - 2] = variants;
  return bytes;
}

async function dropRecording(path: string): Promise<Buffer> {
  const bytes = await recordingBytes();
  await writeFile(path, bytes);
  return bytes;
}

async function stateFile(configHome: string): Promise<string> {
  const dir = join(configHome, 'notes-cli');
  const files = (await readdir(dir)).filter((name) => /^watch-[0-9a-f]{16}\.json$/.test(name));
  expect(files).toHaveLength(1);
  return join(dir, files[0] ?? '');
}

interface StateRecord {
  note_id: string;
  file: string;
  other_names: string[];
  state: string;
}

async function readState(configHome: string): Promise<Record<string, StateRecord>> {
  // JSON.parse throws on a torn or corrupt file: the assertion that it is intact.
  return (
    JSON.parse(await readFile(await stateFile(configHome), 'utf8')) as { files: Record<string, StateRecord> }
  ).files;
}

async function api(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${service.apiKey}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Every note of the account with this title. */
async function notesTitled(title: string): Promise<{ note_id: string }[]> {
  const { body } = await api('/v1/notes?limit=100');
  const notes = body.notes as { note_id: string; title: string }[];
  return notes.filter((note) => note.title === title);
}

interface Line {
  file: string;
  sha256: string;
  note_id: string;
  status: string;
  full_text?: string;
  moved_to?: string;
  duplicate_of?: string;
  error?: { exit_code: number; message: string };
}

/** A running `notes watch` process. */
class Watcher {
  stdout = '';
  stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
  }

  static async start(args: string[], childEnv: Record<string, string>): Promise<Watcher> {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name, value]) => value !== undefined && !name.startsWith('NOTES_'),
      ),
    );
    const child = spawn(await cliNode(), [CLI_BIN, 'watch', ...args], {
      env: { ...inherited, ...childEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watcher = new Watcher(child);
    await watcher.until(() => /Watching /.test(watcher.stderr), 'the watcher to start', 30_000);
    return watcher;
  }

  lines(): Line[] {
    return this.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Line);
  }

  /** The first line for a file whose name ends with `name` and whose status is `status`. */
  async line(name: string, status: string, timeoutMs = 120_000): Promise<Line> {
    const find = () => this.lines().find((line) => line.file.endsWith(name) && line.status === status);
    await this.until(() => find() !== undefined, `a '${status}' line for ${name}`, timeoutMs);
    return find() as Line;
  }

  async until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (this.child.exitCode !== null)
        throw new Error(`watcher exited waiting for ${what}\n${this.describe()}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${this.describe()}`);
      await sleep(100);
    }
  }

  async stop(signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL'): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    this.child.kill(signal);
    const code = await this.exited;
    return { code, ms: Date.now() - started };
  }

  describe(): string {
    return `exit ${this.child.exitCode}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
  }
}

describe('notes watch <folder>', () => {
  it('transcribes a file dropped while it runs once, ignores hidden and temporary files, and stops on Ctrl-C with its state intact', async () => {
    const { folder, env: watchEnv } = await setup('dropped');
    const watcher = await Watcher.start([folder, '--wait', ...FAST], watchEnv);
    await dropRecording(join(folder, '.dropped.wav'));
    await dropRecording(join(folder, 'dropped.wav.part'));
    await dropRecording(join(folder, 'dropped.wav.crdownload'));
    await dropRecording(join(folder, 'dropped.wav~'));
    await writeFile(join(folder, 'notes.txt'), 'not a recording');
    await dropRecording(join(folder, 'dropped.wav'));

    const done = await watcher.line('dropped.wav', 'completed');
    expect(done.note_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(done.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(wordOverlap(clip.sentence, done.full_text ?? '')).toBeGreaterThanOrEqual(0.5);
    // Two more rescans: still one line, one note, and nothing sent for the other files.
    await sleep(4_500);
    expect(watcher.lines(), watcher.describe()).toHaveLength(1);
    expect((await notesTitled('dropped')).map((note) => note.note_id)).toEqual([done.note_id]);
    const { body } = await api('/v1/notes?limit=100');
    const titles = (body.notes as { title: string }[]).map((note) => note.title);
    expect(titles.filter((title) => title.includes('dropped') && title !== 'dropped')).toEqual([]);
    expect(titles).not.toContain('notes');
    const transcript = await api(`/v1/notes/${done.note_id}/transcription`);
    expect(transcript.status).toBe(200);
    expect(transcript.body.full_text).toBe(done.full_text);

    const stopped = await watcher.stop('SIGINT');
    expect(stopped.code, watcher.describe()).toBe(130);
    expect(stopped.ms).toBeLessThan(5_000);
    expect(watcher.stderr).toMatch(/Stopped\. State saved in /);
    const state = await readState(watchEnv.XDG_CONFIG_HOME ?? '');
    expect(state[done.sha256]).toMatchObject({
      note_id: done.note_id,
      file: 'dropped.wav',
      state: 'completed',
    });
    expect(Object.keys(state)).toHaveLength(1);
    expect(`${watcher.stdout}${watcher.stderr}`).not.toContain(service.apiKey);
  });

  it('does not send a file that is still being written until it stops growing', async () => {
    const { folder, env: watchEnv } = await setup('slow');
    const watcher = await Watcher.start([folder, '--settle-seconds', '3', '--poll-seconds', '2'], watchEnv);
    const bytes = await recordingBytes();
    const path = join(folder, 'slow.wav');
    // Eight pieces 0.7 s apart (about 5 s in all): each pause shorter than the 3 s settle time.
    const pieces = 8;
    const size = Math.ceil(bytes.length / pieces);
    for (let i = 0; i < pieces; i++) {
      await appendFile(path, bytes.subarray(i * size, (i + 1) * size));
      if (i < pieces - 1) await sleep(700);
    }
    const whileWriting = watcher.stderr;
    expect(whileWriting).toMatch(/Found slow\.wav: waiting until it stops changing/);
    expect(whileWriting).not.toMatch(/slow\.wav: sha256/);
    expect(whileWriting).not.toMatch(/Uploading slow\.wav/);

    const line = await watcher.line('slow.wav', 'submitted');
    const [note] = await notesTitled('slow');
    expect(note?.note_id).toBe(line.note_id);
    // The whole file was sent: the size declared is the final one, and the transcription completes.
    const read = await api(`/v1/notes/${line.note_id}`);
    expect((read.body.audio as { size_bytes: number }).size_bytes).toBe(bytes.length);
    const deadline = Date.now() + 120_000;
    let status = 202;
    while (status === 202 && Date.now() < deadline) {
      await sleep(2_000);
      status = (await api(`/v1/notes/${line.note_id}/transcription`)).status;
    }
    expect(status).toBe(200);
    expect((await watcher.stop('SIGTERM')).code, watcher.describe()).toBe(143);
  });

  it('after being killed and restarted sends neither the same file again nor a copy of it under another name', async () => {
    const { folder, env: watchEnv } = await setup('restart');
    await dropRecording(join(folder, 'first.wav'));
    const before = await Watcher.start([folder, ...FAST], watchEnv);
    const sent = await before.line('first.wav', 'submitted');
    expect((await before.stop('SIGKILL')).code).toBe(null);
    await readState(watchEnv.XDG_CONFIG_HOME ?? '');

    await copyFile(join(folder, 'first.wav'), join(folder, 'first copy.wav'));
    const after = await Watcher.start([folder, ...FAST], watchEnv);
    const copy = await after.line('first copy.wav', 'duplicate');
    expect(copy).toMatchObject({
      note_id: sent.note_id,
      sha256: sent.sha256,
      duplicate_of: join(folder, 'first.wav'),
    });
    await sleep(4_500);
    expect(after.lines(), after.describe()).toHaveLength(1);
    expect(after.stderr).not.toMatch(/first(?: copy)?\.wav: sha256/);
    expect(after.stderr).not.toMatch(/Uploading/);
    expect((await notesTitled('first')).map((note) => note.note_id)).toEqual([sent.note_id]);
    expect(await notesTitled('first copy')).toEqual([]);
    expect((await after.stop('SIGTERM')).code, after.describe()).toBe(143);
    const state = await readState(watchEnv.XDG_CONFIG_HOME ?? '');
    expect(state[sent.sha256]).toMatchObject({ file: 'first.wav', other_names: ['first copy.wav'] });
  });

  it('waits out the service being stopped and transcribes a file dropped meanwhile once it is back', async () => {
    const { folder, env: watchEnv } = await setup('outage');
    const watcher = await Watcher.start([folder, '--wait', ...FAST], watchEnv);
    await service.signal('SIGTERM');
    try {
      await dropRecording(join(folder, 'outage.wav'));
      await watcher.until(
        () => /Service unavailable/.test(watcher.stderr),
        'the outage to be noticed',
        30_000,
      );
      await sleep(5_000);
    } finally {
      await service.start();
    }
    const done = await watcher.line('outage.wav', 'completed', 180_000);
    expect(wordOverlap(clip.sentence, done.full_text ?? '')).toBeGreaterThanOrEqual(0.5);
    expect(watcher.stderr.match(/Service unavailable/g), watcher.describe()).toHaveLength(1);
    expect(watcher.stderr).toMatch(/The service answers again after/);
    expect((await notesTitled('outage')).map((note) => note.note_id)).toEqual([done.note_id]);
    expect(watcher.lines()).toHaveLength(1);
    expect((await watcher.stop('SIGINT')).code, watcher.describe()).toBe(130);
  });

  it('--once --after move processes what is there, moves each file to the done folder once transcribed, and exits 0', async () => {
    const { folder, env: watchEnv } = await setup('move');
    await dropRecording(join(folder, 'alpha.wav'));
    await dropRecording(join(folder, 'beta.wav'));
    await dropRecording(join(folder, '.hidden.wav'));
    await dropRecording(join(folder, 'gamma.wav.tmp'));
    await mkdir(join(folder, 'done'));
    await dropRecording(join(folder, 'done', 'old.wav'));

    const created = await runCli(['collections', 'create', 'Dictaphone'], env);
    expect(created.code, describeRun(created)).toBe(0);
    const collectionId = (JSON.parse(created.stdout) as { collection_id: string }).collection_id;

    const result = await runCli(
      [
        ...['watch', folder, '--once', '--after', 'move', '--collection', 'dictaphone'],
        ...['--settle-seconds', '1', '--poll-seconds', '2'],
      ],
      watchEnv,
      {
        timeoutMs: 240_000,
      },
    );
    expect(result.code, describeRun(result)).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines.map((line) => [line.file, line.status, line.moved_to]).sort()).toEqual([
      [join(folder, 'alpha.wav'), 'completed', join(folder, 'done', 'alpha.wav')],
      [join(folder, 'beta.wav'), 'completed', join(folder, 'done', 'beta.wav')],
    ]);
    expect((await readdir(folder)).sort()).toEqual(['.hidden.wav', 'done', 'gamma.wav.tmp']);
    expect((await readdir(join(folder, 'done'))).sort()).toEqual(['alpha.wav', 'beta.wav', 'old.wav']);
    for (const line of lines) {
      expect(
        (await notesTitled(line.file.endsWith('alpha.wav') ? 'alpha' : 'beta')).map((n) => n.note_id),
      ).toEqual([line.note_id]);
      expect((await api(`/v1/notes/${line.note_id}/transcription`)).status).toBe(200);
    }
    expect(await notesTitled('old')).toEqual([]);
    // Filed in the collection named (case does not count).
    const filed = await api(`/v1/notes?collection_id=${collectionId}`);
    expect((filed.body.notes as { note_id: string }[]).map((note) => note.note_id).sort()).toEqual(
      lines.map((line) => line.note_id).sort(),
    );

    // Again: nothing left to do.
    const again = await runCli(
      ['watch', folder, '--once', '--after', 'move', '--settle-seconds', '1', '--poll-seconds', '2'],
      watchEnv,
    );
    expect(again.code, describeRun(again)).toBe(0);
    expect(again.stdout).toBe('');
  });

  it('a Ctrl-C during an upload leaves the state intact, and the next run finishes that file into the same note', async () => {
    const { folder, env: watchEnv } = await setup('interrupted');
    const watcher = await Watcher.start([folder, ...FAST], watchEnv);
    await dropRecording(join(folder, 'interrupted.wav'));
    await watcher.until(() => /interrupted\.wav: sha256/.test(watcher.stderr), 'the upload to start', 30_000);
    const stopped = await watcher.stop('SIGINT');
    expect(stopped.code, watcher.describe()).toBe(130);
    const state = Object.values(await readState(watchEnv.XDG_CONFIG_HOME ?? ''));
    expect(state).toHaveLength(1);
    expect(state[0]?.state).toMatch(/^(uploading|submitted)$/);

    const resumed = await runCli(
      ['watch', folder, '--once', '--wait', '--settle-seconds', '1', '--poll-seconds', '2'],
      watchEnv,
      {
        timeoutMs: 180_000,
      },
    );
    expect(resumed.code, describeRun(resumed)).toBe(0);
    const [line] = resumed.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Line);
    expect(line).toMatchObject({ status: 'completed', note_id: state[0]?.note_id });
    expect((await notesTitled('interrupted')).map((note) => note.note_id)).toEqual([state[0]?.note_id]);
  });

  it('has --help, and refuses bad arguments with exit 2 before sending anything', async () => {
    const help = await runCli(['watch', '--help']);
    expect(help.code, describeRun(help)).toBe(0);
    for (const option of [
      '--collection',
      '--speakers',
      '--after',
      '--done-folder',
      '--wait',
      '--poll-seconds',
      '--once',
    ]) {
      expect(help.stdout).toContain(option);
    }
    const missing = await runCli(['watch', join(scratch, 'no-such-folder')], env);
    expect(missing.code, describeRun(missing)).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the folder .*ENOENT/);
    const { folder } = await setup('usage');
    const doneWithoutMove = await runCli(['watch', folder, '--done-folder', join(folder, 'x')], env);
    expect(doneWithoutMove.code, describeRun(doneWithoutMove)).toBe(2);
    const badAfter = await runCli(['watch', folder, '--after', 'delete'], env);
    expect(badAfter.code, describeRun(badAfter)).toBe(2);
    const badPoll = await runCli(['watch', folder, '--poll-seconds', '1'], env);
    expect(badPoll.code, describeRun(badPoll)).toBe(2);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { submitAndUpload, transcribedNote } from '../support/transcribe.ts';
import { CLI_BIN, type CliResult, cliNode, describeRun, runCli } from './run-cli.ts';

/**
 * `notes export <folder>`: the real CLI against the real local service, writing real files in a
 * temporary folder. Notes are short flite recordings (test/support/transcribe.ts).
 */

let service: RunningService;
let api: Api;
let env: Record<string, string>;
let scratch: string;
/** "Weekly product sync", in the collection "Product", Speaker 1 named Ada, split in two segments. */
let main: string;
let twins: [string, string];
let unsafe: string;

interface Line {
  note_id: string;
  title: string;
  file: string | null;
  status: string;
  conflict_file?: string;
}

interface StateFile {
  version: number;
  notes: Record<
    string,
    { file: string; sha256: string; note_etag: string | null; transcript_revision: number }
  >;
}

interface Segment {
  start_ms: number;
  text: string;
}

beforeAll(async () => {
  [service] = await Promise.all([startService(), speechFixture('slt', 'wav')]);
  api = client(service.baseUrl, service.apiKey);
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
  scratch = await mkdtemp(join(tmpdir(), 'notes-cli-export-'));
  main = await transcribedNote(api, 'Weekly product sync');
  // One after the other, so that which of the two is older is certain.
  twins = [await transcribedNote(api, 'Same title'), await transcribedNote(api, 'Same title')];
  unsafe = await transcribedNote(api, 'a/b: c?*');

  const collection = await api('POST', '/v1/collections', { body: { name: 'Product' } });
  expect(collection.status, JSON.stringify(collection.body)).toBe(201);
  const collectionId = collection.body.collection_id as string;
  const filed = await api('POST', `/v1/collections/${collectionId}/notes`, { body: { note_id: main } });
  expect(filed.status, JSON.stringify(filed.body)).toBeLessThan(300);
  const named = await api('PATCH', `/v1/notes/${main}`, { body: { speaker_names: { 'Speaker 1': 'Ada' } } });
  expect(named.status).toBe(200);
  // Two segments, so that the transcript has two timestamps.
  await correct(main, [{ op: 'split', segment: 0, at_word: 10 }]);
}, 300_000);

afterAll(async () => {
  await service?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A correction through REST (editTranscription), with the transcript's current ETag. */
async function correct(noteId: string, edits: object[]): Promise<void> {
  const current = await api('GET', `/v1/notes/${noteId}/transcription`);
  const edited = await api('POST', `/v1/notes/${noteId}/transcription/edits`, {
    body: { edits },
    headers: { 'if-match': current.headers.get('etag') ?? '' },
  });
  expect(edited.status, JSON.stringify(edited.body)).toBe(200);
}

function jsonLines(result: CliResult): Line[] {
  try {
    return result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Line);
  } catch {
    throw new Error(`stdout is not JSON Lines:\n${describeRun(result)}`);
  }
}

async function exportTo(folder: string, ...options: string[]): Promise<{ result: CliResult; lines: Line[] }> {
  const result = await runCli(['export', folder, ...options], env, { timeoutMs: 300_000 });
  expect(result.code, describeRun(result)).toBe(0);
  return { result, lines: jsonLines(result) };
}

function lineOf(lines: Line[], noteId: string): Line {
  const line = lines.find((candidate) => candidate.note_id === noteId);
  if (!line) throw new Error(`no line for note ${noteId}: ${JSON.stringify(lines)}`);
  return line;
}

/** The front matter (parsed YAML) and the body of an exported file. */
function splitMarkdown(text: string): { front: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`no front matter:\n${text}`);
  return { front: parseYaml(match[1] ?? '') as Record<string, unknown>, body: match[2] ?? '' };
}

async function readState(folder: string): Promise<StateFile> {
  return JSON.parse(await readFile(join(folder, '.notes-export.json'), 'utf8')) as StateFile;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const timestamp = (ms: number) =>
  `${Math.floor(ms / 60_000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;

describe('notes export <folder>', () => {
  it('writes a completed note as Markdown: front matter, Insights asked for with --with-insights, speakers and timestamps', async () => {
    const folder = join(scratch, 'vault');
    const { result, lines } = await exportTo(folder, '--collection', 'Product', '--with-insights');
    expect(lines).toEqual([
      { note_id: main, title: 'Weekly product sync', file: 'Weekly product sync.md', status: 'written' },
    ]);
    expect(result.stderr).toContain('written: Weekly product sync.md');

    const note = (await api('GET', `/v1/notes/${main}`)).body as {
      created_at: number;
      transcription: { conversation_segments: Segment[]; duration_ms: number };
      insights: {
        generated_at: number;
        summary: { text: string };
        action_items: { text: string; owner: string | null; due_date: string | null }[];
      };
    };
    expect(note.insights, 'Insights generated by --with-insights').not.toBeNull();
    const text = await readFile(join(folder, 'Weekly product sync.md'), 'utf8');
    const { front, body } = splitMarkdown(text);
    const created = new Date(note.created_at);
    expect(front).toEqual({
      title: 'Weekly product sync',
      note_id: main,
      created: `${created.getFullYear()}-${String(created.getMonth() + 1).padStart(2, '0')}-${String(created.getDate()).padStart(2, '0')}`,
      created_at: created.toISOString(),
      duration: timestamp(note.transcription.duration_ms),
      speakers: ['Ada'],
      collections: ['Product'],
      url: `${service.baseUrl}/#/notes/${main}`,
      transcript_revision: 1,
      insights_generated_at: new Date(note.insights.generated_at).toISOString(),
    });
    expect(body).toMatch(/^\n# Weekly product sync\n\n## Summary\n\n/);
    expect(body).toContain(note.insights.summary.text.slice(0, 40));
    if (note.insights.action_items.length) {
      expect(body).toContain('\n## Action items\n');
      for (const item of note.insights.action_items) {
        if (item.due_date) expect(body).toContain(`due: ${item.due_date}`);
        if (item.owner) expect(body).toContain(`owner: ${item.owner}`);
      }
    }
    const [first, second] = note.transcription.conversation_segments;
    expect(second, 'two segments after the split').toBeDefined();
    const transcript = body.slice(body.indexOf('\n## Transcript\n'));
    expect(transcript).toContain(`**Ada** (0:00): ${first?.text.slice(0, 20)}`);
    expect(transcript).toContain(
      `**Ada** (${timestamp(second?.start_ms ?? 0)}): ${second?.text.slice(0, 20)}`,
    );
    expect(timestamp(second?.start_ms ?? 0)).not.toBe('0:00');

    const state = await readState(folder);
    expect(state.notes[main]).toMatchObject({ file: 'Weekly product sync.md', sha256: sha256(text) });
  });

  it('rewrites the file after a transcript correction, and leaves it alone when nothing changed', async () => {
    const folder = join(scratch, 'vault');
    const again = await exportTo(folder, '--collection', 'Product');
    expect(lineOf(again.lines, main).status).toBe('unchanged');

    await correct(main, [{ op: 'replace_text', segment: 0, text: 'Corrected in the service today.' }]);
    const { lines } = await exportTo(folder, '--collection', 'Product');
    expect(lineOf(lines, main)).toMatchObject({ file: 'Weekly product sync.md', status: 'updated' });
    const text = await readFile(join(folder, 'Weekly product sync.md'), 'utf8');
    expect(text).toContain('**Ada** (0:00): Corrected in the service today.');
    const { front, body } = splitMarkdown(text);
    expect(front.transcript_revision).toBe(2);
    // The Insights were made from revision 1: the file says so.
    expect(body).toContain('> [!note] The transcript was corrected after these Insights were generated');
    expect((await readState(folder)).notes[main]?.sha256).toBe(sha256(text));
  });

  it('keeps a file the person edited, reports it and puts the newer version beside it; deleting it takes the new version', async () => {
    const folder = join(scratch, 'edited');
    await exportTo(folder, '--collection', 'Product');
    const file = join(folder, 'Weekly product sync.md');
    await appendFile(file, '\nMy own notes: call Ada back.\n');
    const edited = await readFile(file, 'utf8');
    const renamed = await api('PATCH', `/v1/notes/${main}`, {
      body: { title: 'Weekly product sync, renamed' },
    });
    expect(renamed.status).toBe(200);

    const { result, lines } = await exportTo(folder, '--collection', 'Product');
    expect(lineOf(lines, main)).toEqual({
      note_id: main,
      title: 'Weekly product sync, renamed',
      file: 'Weekly product sync.md',
      status: 'kept-edited',
      conflict_file: 'Weekly product sync.conflict.md',
    });
    expect(result.stderr).toMatch(/kept: Weekly product sync\.md was edited since the last export/);
    expect(await readFile(file, 'utf8')).toBe(edited);
    const conflict = await readFile(join(folder, 'Weekly product sync.conflict.md'), 'utf8');
    expect(splitMarkdown(conflict).front.title).toBe('Weekly product sync, renamed');

    // Still kept on the next run, with nothing written again.
    const again = await exportTo(folder, '--collection', 'Product');
    expect(lineOf(again.lines, main).status).toBe('kept-edited');
    expect(await readFile(file, 'utf8')).toBe(edited);

    // The person deletes their copy: the service's version comes back under the same name.
    await rm(file);
    const taken = await exportTo(folder, '--collection', 'Product');
    expect(lineOf(taken.lines, main)).toMatchObject({ file: 'Weekly product sync.md', status: 'written' });
    expect(splitMarkdown(await readFile(file, 'utf8')).front.title).toBe('Weekly product sync, renamed');
    expect((await readdir(folder)).sort()).toEqual(['.notes-export.json', 'Weekly product sync.md']);
  });

  it('gives two notes with one title two file names that stay, makes unsafe titles safe, and generates nothing', async () => {
    const folder = join(scratch, 'all');
    const [older, newer] = twins;
    const first = await exportTo(folder);
    expect(lineOf(first.lines, older)).toMatchObject({ file: 'Same title.md', status: 'written' });
    expect(lineOf(first.lines, newer)).toMatchObject({
      file: `Same title (${newer.slice(0, 8)}).md`,
      status: 'written',
    });
    expect(lineOf(first.lines, unsafe)).toMatchObject({
      title: 'a/b: c?*',
      file: 'a b c.md',
      status: 'written',
    });
    expect(await readdir(folder)).toEqual(
      expect.arrayContaining(['Same title.md', `Same title (${newer.slice(0, 8)}).md`, 'a b c.md']),
    );
    expect(splitMarkdown(await readFile(join(folder, 'a b c.md'), 'utf8')).front.title).toBe('a/b: c?*');

    const second = await exportTo(folder);
    for (const noteId of [older, newer, unsafe]) {
      expect(lineOf(second.lines, noteId)).toEqual({ ...lineOf(first.lines, noteId), status: 'unchanged' });
    }
    // Without --with-insights nothing is generated: a note without Insights has none in its file.
    const twin = await readFile(join(folder, 'Same title.md'), 'utf8');
    expect(twin).not.toContain('## Summary');
    expect(splitMarkdown(twin).front.insights_generated_at).toBeNull();
    expect((await api('GET', `/v1/notes/${older}/insights`)).status).toBe(404);
  });

  it('exports every page of notes: completed notes behind 100 newer ones still awaiting their audio', async () => {
    const pending = await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const noteId = randomUUID();
        const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
          body: { title: `Pending ${index}`, content_type: 'audio/wav', size_bytes: 1024 },
        });
        expect(submitted.status).toBe(202);
        return noteId as string;
      }),
    );
    const firstPage = await api<{ notes: { note_id: string }[] }>('GET', '/v1/notes?limit=100');
    expect(firstPage.body.notes.map((note) => note.note_id)).not.toContain(main);

    const { lines } = await exportTo(join(scratch, 'paged'));
    for (const noteId of [main, ...twins, unsafe]) expect(lineOf(lines, noteId).status).toBe('written');
    expect(lines.filter((line) => pending.includes(line.note_id))).toEqual([]);
  });

  it('--watch writes a note that completes after it started, and stops on SIGINT with the state saved', async () => {
    const folder = join(scratch, 'watched');
    const watcher = await startWatching(folder);
    try {
      await watcher.waitFor(() => watcher.stderr().includes(`${folder}:`), 'the first pass');
      const noteId = randomUUID();
      const fixture = await speechFixture('slt', 'wav');
      await submitAndUpload(api, noteId, fixture.file, fixture.contentType, 'Arrived while watching');
      await watcher.waitFor(
        () => watcher.lines().some((line) => line.note_id === noteId && line.status === 'written'),
        'the new note written',
      );
      const exit = await watcher.interrupt();
      // 130: stopped by SIGINT, as the shell counts it; after the pass at hand, with the state saved.
      expect(exit.code, describeRun({ ...exit, stdout: watcher.stdout(), stderr: watcher.stderr() })).toBe(
        130,
      );
      expect(watcher.stderr()).toContain('Stopped; the export state is saved.');

      const state = await readState(folder);
      const entry = state.notes[noteId];
      expect(entry?.file).toBe('Arrived while watching.md');
      const text = await readFile(join(folder, 'Arrived while watching.md'), 'utf8');
      expect(entry?.sha256).toBe(sha256(text));
      expect(splitMarkdown(text).front.note_id).toBe(noteId);
      expect((await readdir(folder)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      watcher.kill();
    }
  }, 240_000);

  it('leaves the files of notes trashed or deleted in the service, and reports them', async () => {
    const folder = join(scratch, 'left');
    const trashed = twins[1];
    const trashedFile = lineOf((await exportTo(folder)).lines, trashed).file as string;
    const deletedFile = 'a b c.md';
    const before = await readFile(join(folder, deletedFile), 'utf8');
    expect((await api('PATCH', `/v1/notes/${trashed}`, { body: { state: 'trashed' } })).status).toBe(200);
    expect((await api('DELETE', `/v1/notes/${unsafe}`)).status).toBe(204);

    const { result, lines } = await exportTo(folder);
    expect(lineOf(lines, trashed)).toMatchObject({ file: trashedFile, status: 'trashed' });
    expect(lineOf(lines, unsafe)).toMatchObject({ file: deletedFile, status: 'deleted' });
    expect(result.stderr).toContain(
      `note ${unsafe} was deleted in the service; ${deletedFile} stays as it is`,
    );
    expect(await readFile(join(folder, deletedFile), 'utf8')).toBe(before);
    expect(await readdir(folder)).toContain(trashedFile);

    // Restored: exported again, in the same file.
    expect((await api('PATCH', `/v1/notes/${trashed}`, { body: { state: 'active' } })).status).toBe(200);
    const restored = await exportTo(folder);
    expect(lineOf(restored.lines, trashed)).toMatchObject({ file: trashedFile, status: 'unchanged' });
    expect(lineOf(restored.lines, unsafe).status).toBe('deleted');
  });

  it('documents itself in --help and refuses a poll interval under 2 s', async () => {
    const help = await runCli(['export', '--help']);
    expect(help.code, describeRun(help)).toBe(0);
    for (const option of ['--watch', '--poll-seconds', '--collection', '--with-insights', '--app-url']) {
      expect(help.stdout).toContain(option);
    }
    const tooOften = await runCli(['export', join(scratch, 'never'), '--watch', '--poll-seconds', '1'], env);
    expect(tooOften.code, describeRun(tooOften)).toBe(2);
  });
});

/** The CLI's file names (cli/src/export/file-names.mjs), loaded as the CLI runs it: plain JavaScript, untyped. */
const { safeBaseName, newFileName } = (await import(
  new URL('../../cli/src/export/file-names.mjs', import.meta.url).href
)) as {
  safeBaseName: (title: string) => string;
  newFileName: (title: string, noteId: string, isTaken: (name: string) => boolean) => string;
};

describe('file names of exported notes', () => {
  it('leave out separators, reserved and control characters, Windows device names and hidden-file dots', () => {
    expect(safeBaseName('a/b: c?*')).toBe('a b c');
    expect(safeBaseName('..\\..\\etc/passwd')).toBe('etc passwd');
    expect(safeBaseName('Line\none\ttab\u0000nul')).toBe('Line one tab nul');
    expect(safeBaseName('Plan <v2> | "final" [#3]^')).toBe('Plan v2 final 3');
    expect(safeBaseName('CON')).toBe('CON_');
    expect(safeBaseName('lpt1.notes')).toBe('lpt1_.notes');
    expect(safeBaseName('con.md')).toBe('con_.md');
    expect(safeBaseName('Ends with dots... ')).toBe('Ends with dots');
    expect(safeBaseName(' /// ')).toBe('Untitled');
  });

  it('stay within file-system limits without cutting a character in two', () => {
    const long = safeBaseName('é'.repeat(300));
    expect(Buffer.byteLength(long, 'utf8')).toBeLessThanOrEqual(180);
    expect(long).toBe('é'.repeat(90));
    expect(safeBaseName('😀'.repeat(100))).toBe('😀'.repeat(45));
  });

  it('take the short note ID when a name is taken, regardless of case', () => {
    const taken = new Set(['weekly sync.md']);
    const isTaken = (name: string) => taken.has(name.toLowerCase());
    expect(newFileName('Weekly Sync', '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34', isTaken)).toBe(
      'Weekly Sync (3f2b8c1e).md',
    );
    expect(newFileName('Other', '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34', isTaken)).toBe('Other.md');
  });
});

/** `notes export <folder> --watch --poll-seconds 2` as a child process, for signals. */
async function startWatching(folder: string) {
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('NOTES_')) childEnv[name] = value;
  }
  const child: ChildProcess = spawn(
    await cliNode(),
    [CLI_BIN, 'export', folder, '--watch', '--poll-seconds', '2'],
    { env: { ...childEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null }>((resolve) =>
    child.once('close', (code) => resolve({ code })),
  );
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Line),
    async waitFor(condition: () => boolean, what: string, timeoutMs = 180_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`gave up waiting for ${what}:\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        }
        await sleep(250);
      }
    },
    async interrupt() {
      child.kill('SIGINT');
      return exited;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, client } from '../support/api.ts';
import { notAudioFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

let service: RunningService;
let api: Api;
let env: Record<string, string>;

/** A note created through the API whose audio is never uploaded (it stays awaiting_upload). */
async function noteWithoutAudio(title: string): Promise<string> {
  const noteId = randomUUID();
  const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: 'audio/wav', size_bytes: 1000 },
  });
  expect(submitted.status).toBe(202);
  return noteId;
}

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
});
afterAll(() => service?.stop());

describe('notes auth status', () => {
  it('prints the base URL, account and key ID, and never the key', async () => {
    const account = (await api('GET', '/v1/account')).body as {
      account_id: string;
      name: string;
      api_key: { key_id: string };
    };
    const result = await runCli(['auth', 'status'], env);
    expect(result.code, describeRun(result)).toBe(0);
    expect(stdoutJson(result)).toEqual({
      base_url: service.baseUrl,
      account_id: account.account_id,
      name: account.name,
      key_id: account.api_key.key_id,
    });
    expect(`${result.stdout}${result.stderr}`).not.toContain(service.apiKey);
  });

  it('exits 3 for a key the service rejects, without printing it', async () => {
    const wrongKey = `svc_sk_${randomUUID().replaceAll('-', '')}`;
    const result = await runCli(['auth', 'status'], { ...env, NOTES_API_KEY: wrongKey });
    expect(result.code, describeRun(result)).toBe(3);
    expect(result.stderr).toMatch(/HTTP 401/);
    expect(`${result.stdout}${result.stderr}`).not.toContain(wrongKey);
  });

  it('exits 3 when NOTES_API_KEY is missing', async () => {
    const result = await runCli(['auth', 'status'], { NOTES_BASE_URL: service.baseUrl });
    expect(result.code, describeRun(result)).toBe(3);
    expect(result.stderr).toMatch(/NOTES_API_KEY/);
  });
});

describe('notes notes ...', () => {
  it('lists, gets, renames, trashes and restores a note', async () => {
    const noteId = await noteWithoutAudio('Planning call');

    const listed = await runCli(['notes', 'list', '--limit', '100'], env);
    expect(listed.code, describeRun(listed)).toBe(0);
    const page = stdoutJson<{ notes: { note_id: string; title: string }[]; next_cursor: string | null }>(
      listed,
    );
    expect(page.notes).toContainEqual(expect.objectContaining({ note_id: noteId, title: 'Planning call' }));

    const got = await runCli(['notes', 'get', noteId], env);
    expect(got.code, describeRun(got)).toBe(0);
    expect(stdoutJson(got)).toMatchObject({ note_id: noteId, title: 'Planning call', state: 'active' });

    const renamed = await runCli(['notes', 'rename', noteId, 'Planning call, 12 January'], env);
    expect(renamed.code, describeRun(renamed)).toBe(0);
    expect(stdoutJson(renamed)).toMatchObject({ note_id: noteId, title: 'Planning call, 12 January' });

    const trashed = await runCli(['notes', 'trash', noteId], env);
    expect(trashed.code, describeRun(trashed)).toBe(0);
    expect(stdoutJson(trashed)).toMatchObject({ note_id: noteId, state: 'trashed' });
    const trash = stdoutJson<{ notes: { note_id: string }[] }>(
      await runCli(['notes', 'list', '--state', 'trashed'], env),
    );
    expect(trash.notes.map((note) => note.note_id)).toContain(noteId);

    const restored = await runCli(['notes', 'restore', noteId], env);
    expect(restored.code, describeRun(restored)).toBe(0);
    expect(stdoutJson(restored)).toMatchObject({ note_id: noteId, state: 'active', trashed_at: null });
  });

  it('follows every page with --all and prints them as one document', async () => {
    const ids = [await noteWithoutAudio('page a'), await noteWithoutAudio('page b')];
    const result = await runCli(['notes', 'list', '--limit', '1', '--all'], env);
    expect(result.code, describeRun(result)).toBe(0);
    const all = stdoutJson<{ notes: { note_id: string }[]; next_cursor: null }>(result);
    expect(all.next_cursor).toBeNull();
    expect(all.notes.map((note) => note.note_id)).toEqual(expect.arrayContaining(ids));
  });

  it('refuses to delete without --confirm or with a wrong one (exit 2, note kept), and deletes with the right one', async () => {
    const noteId = await noteWithoutAudio('To be deleted');

    const missing = await runCli(['notes', 'delete', noteId], env);
    expect(missing.code, describeRun(missing)).toBe(2);
    const wrong = await runCli(['notes', 'delete', noteId, '--confirm', randomUUID()], env);
    expect(wrong.code, describeRun(wrong)).toBe(2);
    expect((await api('GET', `/v1/notes/${noteId}`)).status).toBe(200);

    const deleted = await runCli(['notes', 'delete', noteId, '--confirm', noteId], env);
    expect(deleted.code, describeRun(deleted)).toBe(0);
    expect(deleted.stdout).toBe('');
    expect(deleted.stderr).toMatch(/Deleted note/);
    expect((await api('GET', `/v1/notes/${noteId}`)).status).toBe(404);
  });

  it("prints the note's ETag on stderr; --if-match with it changes the note, a stale one exits 5 and changes nothing", async () => {
    const noteId = await noteWithoutAudio('Draft agenda');
    const etagIn = (stderr: string) => /^ETag: ("[^"]+")$/m.exec(stderr)?.[1];
    const got = await runCli(['notes', 'get', noteId], env);
    expect(got.code, describeRun(got)).toBe(0);
    const seen = etagIn(got.stderr) as string;
    expect(seen).toBe((await api('GET', `/v1/notes/${noteId}`)).headers.get('etag'));

    const renamed = await runCli(['notes', 'rename', noteId, 'Agenda', '--if-match', seen], env);
    expect(renamed.code, describeRun(renamed)).toBe(0);
    expect(etagIn(renamed.stderr)).not.toBe(seen);

    const stale = await runCli(['notes', 'trash', noteId, '--if-match', seen], env);
    expect(stale.code, describeRun(stale)).toBe(5);
    expect(stale.stderr).toMatch(/HTTP 412.*changed since you read it/s);
    expect((await api('GET', `/v1/notes/${noteId}`)).body).toMatchObject({
      title: 'Agenda',
      state: 'active',
    });
  });

  it('exits 4 for a note that does not exist', async () => {
    const result = await runCli(['notes', 'get', randomUUID()], env);
    expect(result.code, describeRun(result)).toBe(4);
    expect(result.stderr).toMatch(/HTTP 404/);
    expect(result.stdout).toBe('');
  });
});

describe('notes collections ...', () => {
  it('creates a collection, files notes by collection name, lists them, renames, takes out and deletes it (notes kept)', async () => {
    const first = await noteWithoutAudio('Roadmap review');
    const second = await noteWithoutAudio('Pricing call');
    const created = await runCli(['collections', 'create', 'Roadmap CLI'], env);
    expect(created.code, describeRun(created)).toBe(0);
    const { collection_id } = stdoutJson<{ collection_id: string }>(created);

    const added = await runCli(['collections', 'add', 'roadmap cli', first, second], env);
    expect(added.code, describeRun(added)).toBe(0);
    expect(stdoutJson<{ note_id: string }[]>(added).map((r) => r.note_id)).toEqual([first, second]);

    const listed = await runCli(['notes', 'list', '--collection', 'Roadmap CLI', '--all'], env);
    expect(listed.code, describeRun(listed)).toBe(0);
    expect(
      stdoutJson<{ notes: { note_id: string }[] }>(listed)
        .notes.map((n) => n.note_id)
        .sort(),
    ).toEqual([first, second].sort());

    const renamed = await runCli(['collections', 'rename', collection_id, 'Roadmap 2027'], env);
    expect(renamed.code, describeRun(renamed)).toBe(0);
    expect(stdoutJson(renamed)).toMatchObject({ collection_id, name: 'Roadmap 2027' });
    const all = await runCli(['collections', 'list'], env);
    expect(stdoutJson<{ collections: { name: string }[] }>(all).collections.map((c) => c.name)).toContain(
      'Roadmap 2027',
    );

    const removed = await runCli(['collections', 'remove', 'Roadmap 2027', second], env);
    expect(removed.code, describeRun(removed)).toBe(0);
    expect(stdoutJson(removed)).toEqual({ note_id: second, collections: [] });

    const deleted = await runCli(['collections', 'delete', 'Roadmap 2027'], env);
    expect(deleted.code, describeRun(deleted)).toBe(0);
    expect(deleted.stdout).toBe('');
    expect(deleted.stderr).toMatch(/notes remain/);
    const kept = await runCli(['notes', 'get', first], env);
    expect(kept.code, describeRun(kept)).toBe(0);
    expect(stdoutJson(kept)).toMatchObject({ note_id: first, collections: [] });
  });

  it('creates a collection with instructions, changes them from a file, clears them and shows 400 for too long', async () => {
    const created = await runCli(
      ['collections', 'create', 'Recipes CLI', '--instructions', '  Ingredients first, then the steps.  '],
      env,
    );
    expect(created.code, describeRun(created)).toBe(0);
    const { collection_id } = stdoutJson<{ collection_id: string }>(created);
    expect(stdoutJson(created)).toMatchObject({
      name: 'Recipes CLI',
      instructions: 'Ingredients first, then the steps.',
    });

    const folder = await mkdtemp(join(tmpdir(), 'notes-cli-instructions-'));
    const file = join(folder, 'instructions.txt');
    await writeFile(file, 'Treat each note as a recipe.\r\nAmounts with every ingredient.\n');
    const fromFile = await runCli(['collections', 'update', 'recipes cli', '--instructions-file', file], env);
    expect(fromFile.code, describeRun(fromFile)).toBe(0);
    expect(stdoutJson(fromFile)).toMatchObject({
      collection_id,
      name: 'Recipes CLI',
      instructions: 'Treat each note as a recipe.\nAmounts with every ingredient.',
    });
    const listed = await runCli(['collections', 'list'], env);
    const found = stdoutJson<{ collections: { collection_id: string; instructions: string | null }[] }>(
      listed,
    ).collections.find((collection) => collection.collection_id === collection_id);
    expect(found?.instructions).toBe('Treat each note as a recipe.\nAmounts with every ingredient.');

    const renamedAndCleared = await runCli(
      ['collections', 'update', collection_id, '--name', 'Cooking', '--clear-instructions'],
      env,
    );
    expect(renamedAndCleared.code, describeRun(renamedAndCleared)).toBe(0);
    expect(stdoutJson(renamedAndCleared)).toMatchObject({ name: 'Cooking', instructions: null });

    await writeFile(file, 'x'.repeat(1001));
    const tooLong = await runCli(['collections', 'update', 'Cooking', '--instructions-file', file], env);
    expect(tooLong.code, describeRun(tooLong)).toBe(6);
    expect(tooLong.stderr).toMatch(/HTTP 400.*instructions: must be at most 1000 characters/s);
    expect(tooLong.stdout).toBe('');
    await rm(folder, { recursive: true, force: true });
  });

  it('exits 2 for a collection name that does not exist and 4 for an unknown collection ID', async () => {
    const byName = await runCli(['notes', 'list', '--collection', 'No such collection'], env);
    expect(byName.code, describeRun(byName)).toBe(2);
    expect(byName.stderr).toMatch(/no collection named/);
    const byId = await runCli(['collections', 'delete', randomUUID()], env);
    expect(byId.code, describeRun(byId)).toBe(4);
    expect(byId.stderr).toMatch(/HTTP 404/);
  });
});

describe('waiting for a job', () => {
  it('prints the job status of a 202 and says on stderr it is not a result and how to poll', async () => {
    const noteId = await noteWithoutAudio('Not uploaded');
    const result = await runCli(['transcription', 'get', noteId], env);
    expect(result.code, describeRun(result)).toBe(0);
    expect(stdoutJson(result)).toMatchObject({ note_id: noteId, status: 'queued', stage: 'awaiting_upload' });
    expect(result.stderr).toContain(`Not a result yet`);
    expect(result.stderr).toContain(`notes transcription get ${noteId}`);
  });

  it('exits 5 when the awaited job ends failed (a file that is not audio)', async () => {
    const noteId = randomUUID();
    const file = await notAudioFixture();
    const result = await runCli(
      ['transcribe', file, '--content-type', 'audio/mpeg', '--note-id', noteId, '--wait', '--timeout', '120'],
      env,
    );
    expect(result.code, describeRun(result)).toBe(5);
    expect(result.stderr).toMatch(/transcription of note \w+ failed: .*audio/i);
    expect(result.stderr).toContain(`--note-id ${noteId}`);
    expect(result.stdout).toBe('');
  });

  it('exits 7 with a clear message when --timeout passes before the job ends (audio never uploaded)', async () => {
    const noteId = await noteWithoutAudio('Never uploaded');
    const started = Date.now();
    const result = await runCli(['transcription', 'get', noteId, '--wait', '--timeout', '3'], env);
    expect(result.code, describeRun(result)).toBe(7);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.stderr).toMatch(/did not finish within --timeout 3 s/);
    expect(result.stderr).toMatch(/awaiting_upload/);
    expect(result.stderr).toContain(`notes transcription get ${noteId}`);
    expect(result.stdout).toBe('');
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { findEverywhere } from '../support/storage.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

let service: RunningService;
let alice: Api;
let mallory: Api;
let aliceNote: string;

beforeAll(async () => {
  service = await startService();
  alice = client(service.baseUrl, (await createAccount(service, 'alice')).api_key);
  mallory = client(service.baseUrl, (await createAccount(service, 'mallory')).api_key);
  aliceNote = randomUUID();
  const fixture = await speechFixture('slt', 'wav');
  await submitAndUpload(alice, aliceNote, fixture.file, fixture.contentType, 'Alice private');
  expect((await pollUntilDone(alice, `/v1/notes/${aliceNote}/transcription`)).final.status).toBe(200);
});
afterAll(() => service?.stop());

describe("one account can neither see nor change another account's notes", () => {
  it('answers 404 (not 403) to every note operation on the other account’s note', async () => {
    for (const [method, path, body] of [
      ['GET', `/v1/notes/${aliceNote}`, undefined],
      ['PATCH', `/v1/notes/${aliceNote}`, { title: 'pwned' }],
      ['PATCH', `/v1/notes/${aliceNote}`, { state: 'trashed' }],
      ['GET', `/v1/notes/${aliceNote}/transcription`, undefined],
      ['POST', `/v1/notes/${aliceNote}/insights`, {}],
      ['GET', `/v1/notes/${aliceNote}/insights`, undefined],
      ['POST', `/v1/notes/${aliceNote}/artifacts/epiphany`, { language: 'auto' }],
      ['GET', `/v1/notes/${aliceNote}/artifacts/epiphany`, undefined],
      ['POST', `/v1/notes/${aliceNote}/artifacts/deep_research`, { language: 'auto' }],
      ['POST', `/v1/notes/${aliceNote}/artifacts/podcast`, { language: 'auto' }],
      ['DELETE', `/v1/notes/${aliceNote}/transcription`, undefined],
      ['DELETE', `/v1/notes/${aliceNote}`, undefined],
    ] as const) {
      const response = await mallory(method, path, body ? { body } : {});
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain('Alice');
    }
  });

  it('never answers a question from the other account’s notes, even when they are named', async () => {
    for (const body of [
      { question: 'What did Alice say?' },
      { question: 'What did Alice say?', note_ids: [aliceNote] },
    ]) {
      const response = await mallory('POST', '/v1/ask', { body });
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).not.toContain(aliceNote);
    }
    const own = await alice('POST', '/v1/ask', { body: { question: 'What is this recording about?' } });
    expect(own.status).toBe(200);
  });

  it('does not list the other account’s notes, active or trashed', async () => {
    for (const state of ['active', 'trashed']) {
      const response = await mallory('GET', `/v1/notes?state=${state}&limit=100`);
      expect(response.status).toBe(200);
      expect(JSON.stringify(response.body)).not.toContain(aliceNote);
    }
  });

  it('makes a submission with the same note ID a separate note of the submitter, leaving the original untouched', async () => {
    const response = await mallory('POST', `/v1/notes/${aliceNote}/transcription`, {
      body: { title: 'Mallory copy', content_type: 'audio/wav', size_bytes: 10 },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ title: 'Mallory copy', stage: 'awaiting_upload' });
    const upload = response.body.upload as { url: string };
    expect(upload.url).not.toContain((await alice('GET', '/v1/account')).body.account_id as string);

    const original = await alice('GET', `/v1/notes/${aliceNote}`);
    expect(original.body).toMatchObject({
      title: 'Alice private',
      transcription_status: 'completed',
      state: 'active',
    });
    expect((await alice('GET', `/v1/notes/${aliceNote}/transcription`)).status).toBe(200);
  });

  it('keeps the original intact after the other account deletes its own note of the same ID', async () => {
    expect((await mallory('DELETE', `/v1/notes/${aliceNote}`)).status).toBe(204);
    expect((await alice('GET', `/v1/notes/${aliceNote}/transcription`)).status).toBe(200);
    const { objects } = await findEverywhere(service, aliceNote);
    // Alice's audio, transcript and the voices kept beside it.
    expect(objects.length).toBe(3);
  });

  it('shows each key only its own account', async () => {
    const a = await alice('GET', '/v1/account');
    const m = await mallory('GET', '/v1/account');
    expect(a.body.name).toBe('alice');
    expect(m.body.name).toBe('mallory');
    expect(a.body.account_id).not.toBe(m.body.account_id);
  });
});

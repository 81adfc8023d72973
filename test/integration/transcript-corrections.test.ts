import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/adapters/s3/blob-store.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import type { ConversationSegment } from '../../src/domain/transcript.ts';
import { createAccount } from '../support/accounts.ts';
import { type Api, type ApiResponse, client } from '../support/api.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, transcribedNote } from '../support/transcribe.ts';

/**
 * Correcting a transcript over real HTTP, on notes transcribed by the local pipeline from a spoken
 * recording (flite's slt voice read by pocketsphinx): edits, merges, splits, undo, no lost updates,
 * and everything that reads the transcript following at once.
 */
let service: RunningService;
let api: Api;
let other: Api;
let accountId: string;
let blobs: S3BlobStore;

interface TranscriptBody {
  full_text: string;
  timestamped_full_text: string;
  conversation_segments: ConversationSegment[];
  revision: number;
  edited_at: number | null;
}

type Edit = Record<string, unknown>;

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  other = client(service.baseUrl, (await createAccount(service, 'Someone else')).api_key);
  accountId = String((await api('GET', '/v1/account')).body.account_id);
  blobs = new S3BlobStore(
    new S3Client(await emulatorClientConfig(service.dataDir, service.info.endpoints.s3)),
    service.info.bucket_name,
    60,
  );
}, 240_000);
afterAll(() => service?.stop());

async function read(noteId: string, as: Api = api): Promise<{ body: TranscriptBody; etag: string }> {
  const response = await as<TranscriptBody>('GET', `/v1/notes/${noteId}/transcription`);
  expect(response.status).toBe(200);
  return { body: response.body, etag: String(response.headers.get('etag')) };
}

function edit(noteId: string, edits: Edit[], ifMatch?: string, as: Api = api) {
  return as<TranscriptBody>('POST', `/v1/notes/${noteId}/transcription/edits`, {
    body: { edits },
    ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
  });
}

function undo(noteId: string, ifMatch?: string, body?: object, as: Api = api) {
  return as<TranscriptBody>('POST', `/v1/notes/${noteId}/transcription/undo`, {
    ...(body === undefined ? {} : { body }),
    ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
  });
}

async function exported(noteId: string, format: 'srt' | 'vtt' | 'md'): Promise<string> {
  const response = await fetch(`${service.baseUrl}/v1/notes/${noteId}/transcription?format=${format}`, {
    headers: { authorization: `Bearer ${service.apiKey}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

function ask(question: string) {
  return api<{ note_ids: string[]; citations: { note_id: string; quote: string }[] }>('POST', '/v1/ask', {
    body: { question },
  });
}

interface SearchBody {
  results: Array<{
    note: { note_id: string };
    segments: Array<{ snippet: string; highlights: Array<{ start: number; end: number }> }>;
  }>;
}

/** The notes searchNotes finds for `word`, and the words it highlighted in their snippets. */
async function searched(word: string): Promise<{ noteIds: string[]; highlighted: string[] }> {
  const response = await api<SearchBody>('GET', `/v1/search?q=${encodeURIComponent(word)}`);
  expect(response.status).toBe(200);
  return {
    noteIds: response.body.results.map((result) => result.note.note_id),
    highlighted: response.body.results.flatMap((result) =>
      result.segments.flatMap((segment) =>
        segment.highlights.map((range) => segment.snippet.slice(range.start, range.end)),
      ),
    ),
  };
}

/** The stored word timings of the segments of a transcript object (the recogniser's or a revision). */
async function storedSegments(key: string): Promise<ConversationSegment[]> {
  const stored = await blobs.getJson<{ conversation_segments: ConversationSegment[] }>(key);
  return stored?.conversation_segments ?? [];
}

async function revisionKeys(noteId: string): Promise<string[]> {
  return blobs.listKeys(objectKeys.transcriptRevisions(accountId, noteId));
}

function etagOf(response: ApiResponse<unknown>): string {
  return String(response.headers.get('etag'));
}

describe('correcting a transcript', () => {
  it('a corrected word shows at once in full_text, the timestamped text and the SRT, VTT and Markdown exports; undo restores the original', async () => {
    const noteId = await transcribedNote(api, 'Corrected exports');
    const original = await read(noteId);
    expect(original.body.revision).toBe(0);
    expect(original.body.edited_at).toBeNull();
    const first = original.body.conversation_segments[0] as ConversationSegment;

    const corrected = await edit(
      noteId,
      [{ op: 'replace_text', segment: 0, text: `${first.text} Quokkaville` }],
      original.etag,
    );
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    expect(corrected.body.revision).toBe(1);
    expect(corrected.body.edited_at).toEqual(expect.any(Number));
    expect(corrected.body.conversation_segments[0]).toMatchObject({
      start_ms: first.start_ms,
      end_ms: first.end_ms,
      speaker: first.speaker,
      text: `${first.text} Quokkaville`,
    });
    const now = await read(noteId);
    expect(now.body).toEqual(corrected.body);
    expect(now.etag).toBe(etagOf(corrected));
    expect(now.etag).not.toBe(original.etag);
    expect(now.body.full_text).toContain('Quokkaville');
    expect(now.body.timestamped_full_text.split('\n')[0]).toContain('Quokkaville');
    for (const format of ['srt', 'vtt', 'md'] as const) {
      expect(await exported(noteId, format), format).toContain('Quokkaville');
    }

    const undone = await undo(noteId, now.etag);
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body).toEqual(original.body);
    expect(etagOf(undone)).toBe(original.etag);
    for (const format of ['srt', 'vtt', 'md'] as const) {
      expect(await exported(noteId, format), format).not.toContain('Quokkaville');
    }
    // Nothing more to undo: the recogniser's transcript is revision 0.
    const nothing = await undo(noteId, original.etag);
    expect(nothing.status).toBe(409);
    expect(nothing.body).toEqual({ detail: expect.stringMatching(/nothing to undo/) });
  });

  it('an edited word is found by searchNotes and by Ask at once, and no longer after undo', async () => {
    const noteId = await transcribedNote(api, 'Corrected and searched');
    const original = await read(noteId);
    expect((await searched('zeppelin')).noteIds).not.toContain(noteId);

    const corrected = await edit(
      noteId,
      [{ op: 'replace_text', segment: 0, text: 'The zeppelin hangar opens in April.' }],
      original.etag,
    );
    expect(corrected.status).toBe(200);
    const found = await searched('zeppelin');
    expect(found.noteIds).toEqual([noteId]);
    expect(found.highlighted).toEqual(['zeppelin']);
    const answer = await ask('When does the zeppelin hangar open?');
    expect(answer.status).toBe(200);
    expect(answer.body.note_ids[0]).toBe(noteId);
    expect(JSON.stringify(answer.body.citations), JSON.stringify(answer.body)).toMatch(/zeppelin/i);

    expect((await undo(noteId, etagOf(corrected))).status).toBe(200);
    expect((await searched('zeppelin')).noteIds).not.toContain(noteId);
    expect((await ask('When does the zeppelin hangar open?')).body.note_ids).not.toContain(noteId);
  });

  it('words that did not change keep the times the recogniser gave them, and a split falls on a kept word', async () => {
    const noteId = await transcribedNote(api, 'Word timings');
    const original = await read(noteId);
    const recognised = await storedSegments(objectKeys.transcription(accountId, noteId));
    const segment = original.body.conversation_segments.findIndex(
      (candidate) => candidate.text.split(' ').length >= 6,
    );
    expect(segment).toBeGreaterThanOrEqual(0);
    const words = recognised[segment]?.words ?? [];
    const tokens = (original.body.conversation_segments[segment] as ConversationSegment).text.split(' ');
    expect(words).toHaveLength(tokens.length);

    // The third word is replaced by two others; every other word stays.
    const changed = [...tokens.slice(0, 2), 'Marmalade', 'sandwich', ...tokens.slice(3)];
    const corrected = await edit(
      noteId,
      [{ op: 'replace_text', segment, text: changed.join(' ') }],
      original.etag,
    );
    expect(corrected.status).toBe(200);
    const [revisionKey] = await revisionKeys(noteId);
    const kept = (await storedSegments(String(revisionKey)))[segment]?.words ?? [];
    expect(kept.map((word) => word.text)).toEqual(changed);
    const timing = (word: { start_ms: number; end_ms: number } | undefined) => [word?.start_ms, word?.end_ms];
    expect(kept.slice(0, 2).map(timing)).toEqual(words.slice(0, 2).map(timing));
    expect(kept.slice(4).map(timing)).toEqual(words.slice(3).map(timing));
    // The new words sit in the gap the replaced one left.
    for (const word of kept.slice(2, 4)) {
      expect(word.start_ms).toBeGreaterThanOrEqual(words[1]?.end_ms ?? 0);
      expect(word.end_ms).toBeLessThanOrEqual(words[3]?.start_ms ?? 0);
    }

    // Split before the fifth word (an unchanged one): the second part starts when it was spoken.
    const split = await edit(noteId, [{ op: 'split', segment, at_word: 4 }], etagOf(corrected));
    expect(split.status, JSON.stringify(split.body)).toBe(200);
    const parts = split.body.conversation_segments.slice(segment, segment + 2);
    expect(parts.map((part) => part.text).join(' ')).toBe(changed.join(' '));
    expect(parts[0]?.end_ms).toBe(words[3]?.start_ms);
    expect(parts[1]?.start_ms).toBe(words[3]?.start_ms);

    // Merging them back gives the corrected segment again, with its bounds.
    const merged = await edit(noteId, [{ op: 'merge', segment }], etagOf(split));
    expect(merged.status).toBe(200);
    expect(merged.body.conversation_segments).toEqual(corrected.body.conversation_segments);
    expect(merged.body.revision).toBe(3);
  });

  it('a split at a time, a speaker change and a merge apply together, in order, as one revision', async () => {
    const noteId = await transcribedNote(api, 'Several edits');
    const original = await read(noteId);
    const first = original.body.conversation_segments[0] as ConversationSegment;
    const middle = Math.round((first.start_ms + first.end_ms) / 2);
    const response = await edit(
      noteId,
      [
        { op: 'split', segment: 0, at_ms: middle },
        { op: 'set_speaker', segment: 1, speaker: 'Speaker 9' },
        { op: 'merge', segment: 0 },
        { op: 'set_speaker', segment: 0, speaker: first.speaker },
      ],
      original.etag,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.revision).toBe(1);
    expect(response.body.conversation_segments).toEqual(original.body.conversation_segments);
  });

  it('a speaker set by the name given with updateNote is stored as its label, so a later rename follows', async () => {
    const noteId = await transcribedNote(api, 'Named speakers');
    const named = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Ada', 'Speaker 2': 'Bob' } },
    });
    expect(named.status).toBe(200);
    const original = await read(noteId);
    expect(original.body.conversation_segments[0]?.speaker).toBe('Ada');

    const last = original.body.conversation_segments.length - 1;
    const response = await edit(
      noteId,
      [
        { op: 'split', segment: last, at_word: 1 },
        { op: 'set_speaker', segment: last + 1, speaker: 'Bob' },
        { op: 'set_speaker', segment: last + 1, speaker: 'Ada' },
        { op: 'set_speaker', segment: last, speaker: 'Bob' },
      ],
      original.etag,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.conversation_segments.slice(-2).map((segment) => segment.speaker)).toEqual([
      'Bob',
      'Ada',
    ]);

    const renamed = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Grace' } },
    });
    expect(renamed.status).toBe(200);
    const after = await read(noteId);
    expect(after.body.conversation_segments.slice(-2).map((segment) => segment.speaker)).toEqual([
      'Bob',
      'Grace',
    ]);
    expect(after.body.timestamped_full_text.split('\n').at(-1)).toContain('Grace:');
    expect(after.body.conversation_segments.slice(-2).map((segment) => segment.speaker_label)).toEqual([
      'Speaker 2',
      'Speaker 1',
    ]);
    // The rename changed the representation (and its ETag), not the segments a correction names:
    // one by label made with the ETag read before it applies; one by name does not (names changed).
    expect(after.etag).not.toBe(etagOf(response));
    const byName = await edit(noteId, [{ op: 'set_speaker', segment: 0, speaker: 'Bob' }], etagOf(response));
    expect(byName.status).toBe(412);
    expect(byName.body).toMatchObject({ detail: expect.stringMatching(/names/) });
    expect((await edit(noteId, [{ op: 'merge', segment: 0 }], etagOf(response))).status).toBe(200);
  });

  it('two concurrent edits with the same ETag: one wins, the other gets 412, the transcript is the winner and nothing is lost', async () => {
    const noteId = await transcribedNote(api, 'Contended transcript');
    const rounds = 15;
    for (let round = 0; round < rounds; round += 1) {
      const { etag, body } = await read(noteId);
      const texts = [`Browser correction ${round}.`, `Agent correction ${round}.`];
      const answers = await Promise.all(
        texts.map((text) => edit(noteId, [{ op: 'replace_text', segment: 0, text }], etag)),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = answers.findIndex((answer) => answer.status === 200);
      const loser = answers[1 - winner] as ApiResponse<TranscriptBody>;
      expect(loser.body).toEqual({ detail: expect.stringMatching(/changed since you read it/) });
      const final = await read(noteId);
      expect(final.body.conversation_segments[0]?.text).toBe(texts[winner]);
      expect(final.body.revision).toBe(body.revision + 1);
      expect(final.etag).toBe(etagOf(answers[winner] as ApiResponse<unknown>));
    }
    // Every winner is a revision; every loser's object was removed again.
    expect(await revisionKeys(noteId)).toHaveLength(rounds);
    // And undo walks back through the winners, one by one.
    let { etag } = await read(noteId);
    for (let round = rounds - 2; round >= rounds - 4; round -= 1) {
      const back = await undo(noteId, etag);
      expect(back.status).toBe(200);
      expect(back.body.conversation_segments[0]?.text).toMatch(new RegExp(` correction ${round}\\.$`));
      etag = etagOf(back);
    }
    const toOriginal = await undo(noteId, etag, { to: 'original' });
    expect(toOriginal.status).toBe(200);
    expect(toOriginal.body.revision).toBe(0);
  });

  it('an object left by a crash before the pointer moved blocks nothing; deleteTranscription removes every revision and a new transcription starts at revision 0', async () => {
    const noteId = await transcribedNote(api, 'Crash and retranscribe');
    const original = await read(noteId);
    // What a crash between the object write and the pointer write leaves: an object nothing names.
    const orphan = `${objectKeys.transcriptRevisions(accountId, noteId)}1-${randomUUID()}.json`;
    await blobs.putJson(orphan, { left: 'by a crash' });
    const corrected = await edit(
      noteId,
      [{ op: 'replace_text', segment: 0, text: 'Written after the crash.' }],
      original.etag,
    );
    expect(corrected.status).toBe(200);
    expect(corrected.body.revision).toBe(1);
    expect(await revisionKeys(noteId)).toHaveLength(2);

    expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    expect(await revisionKeys(noteId)).toEqual([]);
    const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'Crash and retranscribe', content_type: 'audio/wav', size_bytes: 1 },
    });
    expect(again.status).toBe(202);
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status).toBe(200);
    expect(final.body).toEqual(original.body);
  });

  it('Insights and artifacts made before a correction say they are older than the transcript until generated again', async () => {
    const noteId = await transcribedNote(api, 'Outdated results');
    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    expect((await api('POST', `/v1/notes/${noteId}/artifacts/epiphany`, { body: {} })).status).toBe(202);
    const insights = (await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final;
    const artifact = (await pollUntilDone(api, `/v1/notes/${noteId}/artifacts/epiphany`)).final;
    expect(insights.body).toMatchObject({ transcript_revision: 0, outdated: false });
    expect(artifact.body).toMatchObject({ transcript_revision: 0, outdated: false });

    const { etag } = await read(noteId);
    expect(
      (await edit(noteId, [{ op: 'replace_text', segment: 0, text: 'A corrected opening.' }], etag)).status,
    ).toBe(200);
    expect((await api('GET', `/v1/notes/${noteId}/insights`)).body).toMatchObject({
      transcript_revision: 0,
      outdated: true,
    });
    expect((await api('GET', `/v1/notes/${noteId}/artifacts/epiphany`)).body).toMatchObject({
      transcript_revision: 0,
      outdated: true,
    });
    expect((await api('GET', `/v1/notes/${noteId}`)).body.insights).toMatchObject({ outdated: true });

    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    const regenerated = (await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final;
    expect(regenerated.body).toMatchObject({ transcript_revision: 1, outdated: false });
    const artifactAgain = await api('POST', `/v1/notes/${noteId}/artifacts/epiphany`, {
      body: { regenerate: true },
    });
    expect(artifactAgain.status).toBe(202);
    const regeneratedArtifact = (await pollUntilDone(api, `/v1/notes/${noteId}/artifacts/epiphany`)).final;
    expect(regeneratedArtifact.body).toMatchObject({ transcript_revision: 1, outdated: false });
  });

  it('Insights and artifacts made before a lost transcript was recognised again say they are outdated, even when the new revision numbers repeat the old ones', async () => {
    const noteId = await transcribedNote(api, 'Recognised again');
    expect((await api('POST', `/v1/notes/${noteId}/artifacts/epiphany`, { body: {} })).status).toBe(202);
    const artifact = (await pollUntilDone(api, `/v1/notes/${noteId}/artifacts/epiphany`)).final;
    expect(artifact.body).toMatchObject({ transcript_revision: 0, outdated: false });
    const original = await read(noteId);
    const corrected = await edit(
      noteId,
      [{ op: 'replace_text', segment: 0, text: 'Corrected before the loss.' }],
      original.etag,
    );
    expect(corrected.status).toBe(200);
    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    const insights = (await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final;
    expect(insights.body).toMatchObject({ transcript_revision: 1, outdated: false });

    // The current revision's object is damaged: the transcript is lost, and a new submission
    // recognises the stored audio again, starting from revision 0.
    const [lostRevision] = await revisionKeys(noteId);
    await blobs.putJson(String(lostRevision), 'not a transcript');
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).status).toBe(409);
    const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'Recognised again', content_type: 'audio/wav', size_bytes: 1 },
    });
    expect(again.status).toBe(202);
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({ revision: 0, edited_at: null });
    // The corrections of the transcript that was replaced name nothing any more: they are removed.
    expect(await revisionKeys(noteId)).toEqual([]);
    expect((await api('GET', `/v1/notes/${noteId}/artifacts/epiphany`)).body).toMatchObject({
      transcript_revision: 0,
      outdated: true,
    });

    const { etag } = await read(noteId);
    const recorrected = await edit(
      noteId,
      [{ op: 'replace_text', segment: 0, text: 'Corrected after the loss.' }],
      etag,
    );
    expect(recorrected.body.revision).toBe(1);
    expect((await api('GET', `/v1/notes/${noteId}/insights`)).body).toMatchObject({
      transcript_revision: 1,
      outdated: true,
    });
    expect((await api('GET', `/v1/notes/${noteId}`)).body.insights).toMatchObject({ outdated: true });

    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    const regenerated = (await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final;
    expect(regenerated.body).toMatchObject({ transcript_revision: 1, outdated: false });
    expect(regenerated.body).not.toHaveProperty('transcript_recognition');
  });

  it('after deleteTranscription and a new transcription, no Insights or artifact of the old transcript remain', async () => {
    const noteId = await transcribedNote(api, 'Deleted and transcribed again');
    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    expect((await api('POST', `/v1/notes/${noteId}/artifacts/epiphany`, { body: {} })).status).toBe(202);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final.status).toBe(200);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/artifacts/epiphany`)).final.status).toBe(200);
    const { etag } = await read(noteId);
    const corrected = await edit(
      noteId,
      [{ op: 'replace_text', segment: 0, text: 'Corrected, then gone.' }],
      etag,
    );
    expect(corrected.status).toBe(200);

    expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'Deleted and transcribed again', content_type: 'audio/wav', size_bytes: 1 },
    });
    expect(again.status).toBe(202);
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
    expect(final.body).toMatchObject({ revision: 0 });

    expect((await api('GET', `/v1/notes/${noteId}/insights`)).status).toBe(404);
    expect((await api('GET', `/v1/notes/${noteId}/artifacts/epiphany`)).status).toBe(404);
    expect((await api('GET', `/v1/notes/${noteId}`)).body.insights).toBeNull();
    const stored = await blobs.listKeys(objectKeys.notePrefix(accountId, noteId));
    expect(stored.filter((key) => /insights|artifacts|transcript-revisions/.test(key))).toEqual([]);
  });
});

describe('bad input on the correction operations', () => {
  let noteId: string;
  let original: { body: TranscriptBody; etag: string };

  beforeAll(async () => {
    noteId = await transcribedNote(api, 'Bad corrections');
    original = await read(noteId);
  }, 240_000);

  /** Nothing was written: same transcript, same ETag, no revision object. */
  async function expectUnchanged(): Promise<void> {
    const now = await read(noteId);
    expect(now.etag).toBe(original.etag);
    expect(now.body).toEqual(original.body);
    expect(await revisionKeys(noteId)).toEqual([]);
  }

  it('answers 4xx with a detail for every kind of bad correction, and writes nothing', async () => {
    const count = original.body.conversation_segments.length;
    const last = original.body.conversation_segments[count - 1] as ConversationSegment;
    const cases: [string, Edit[] | unknown, number, RegExp][] = [
      ['unknown op', [{ op: 'rewrite', segment: 0 }], 400, /op must be one of/],
      ['empty text', [{ op: 'replace_text', segment: 0, text: '   ' }], 400, /must not be empty/],
      ['text too long', [{ op: 'replace_text', segment: 0, text: 'a'.repeat(5001) }], 400, /at most 5000/],
      ['too many edits', Array.from({ length: 51 }, () => ({ op: 'merge', segment: 0 })), 400, /at most 50/],
      ['no edits', [], 400, /at least one/],
      ['negative segment', [{ op: 'merge', segment: -1 }], 400, /segment/],
      ['split with both', [{ op: 'split', segment: 0, at_word: 1, at_ms: 10 }], 400, /exactly one/],
      ['split with neither', [{ op: 'split', segment: 0 }], 400, /exactly one/],
      ['speaker with a line break', [{ op: 'set_speaker', segment: 0, speaker: 'A\nB' }], 400, /line breaks/],
      ['unknown property', [{ op: 'merge', segment: 0, text: 'x' }], 400, /text/],
      ['segment out of range', [{ op: 'replace_text', segment: count, text: 'x' }], 422, /no segment/],
      ['merge of the last segment', [{ op: 'merge', segment: count - 1 }], 422, /is the last one/],
      ['split before the first word', [{ op: 'split', segment: 0, at_word: 0 }], 422, /without words/],
      ['split after the last word', [{ op: 'split', segment: 0, at_word: 10_000 }], 422, /without words/],
      [
        'split outside the segment',
        [{ op: 'split', segment: count - 1, at_ms: last.end_ms }],
        422,
        /outside/,
      ],
      [
        'a later edit that cannot apply (the earlier ones are not kept)',
        [
          { op: 'replace_text', segment: 0, text: 'Kept only if all apply.' },
          { op: 'merge', segment: count - 1 },
        ],
        422,
        /edits\[1\] \(merge\)/,
      ],
    ];
    for (const [name, edits, status, detail] of cases) {
      const response = await edit(noteId, edits as Edit[], original.etag);
      expect(response.status, name).toBe(status);
      expect(String((response.body as unknown as { detail: string }).detail), name).toMatch(detail);
    }
    const notJson = await api('POST', `/v1/notes/${noteId}/transcription/edits`, {
      rawBody: 'edits',
      headers: { 'content-type': 'text/plain', 'if-match': original.etag },
    });
    expect(notJson.status).toBe(415);
    await expectUnchanged();
  });

  it('answers 428 without If-Match, 412 with a stale or weak one, 400 with a malformed one', async () => {
    const merge = [{ op: 'merge', segment: 0 }];
    const missing = await edit(noteId, merge);
    expect(missing.status).toBe(428);
    expect(missing.body).toEqual({ detail: expect.stringMatching(/If-Match/) });
    expect((await undo(noteId)).status).toBe(428);
    expect((await edit(noteId, merge, '"not-the-current-tag"')).status).toBe(412);
    expect((await edit(noteId, merge, `W/${original.etag}`)).status).toBe(412);
    expect((await undo(noteId, '"not-the-current-tag"')).status).toBe(412);
    expect((await edit(noteId, merge, 'no quotes')).status).toBe(400);
    expect((await undo(noteId, original.etag, { to: 'yesterday' })).status).toBe(400);
    // The ETag of another format names another representation.
    const srt = await fetch(`${service.baseUrl}/v1/notes/${noteId}/transcription?format=srt`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect((await edit(noteId, merge, String(srt.headers.get('etag')))).status).toBe(412);
    await expectUnchanged();
  });

  it("answers 404 for another account's note or a missing one, and 409 for a note without a completed transcription", async () => {
    const merge = [{ op: 'merge', segment: 0 }];
    expect((await edit(noteId, merge, original.etag, other)).status).toBe(404);
    expect((await undo(noteId, original.etag, {}, other)).status).toBe(404);
    expect((await edit(noteId, merge, '*', other)).status).toBe(404);
    expect((await edit(randomUUID(), merge, original.etag)).status).toBe(404);
    expect((await edit('not-a-uuid', merge, original.etag)).status).toBe(400);

    const awaitingUpload = randomUUID();
    const submitted = await api('POST', `/v1/notes/${awaitingUpload}/transcription`, {
      body: { title: 'Not yet transcribed', content_type: 'audio/wav', size_bytes: 100 },
    });
    expect(submitted.status).toBe(202);
    const conflict = await edit(awaitingUpload, merge, '*');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ detail: expect.stringMatching(/completed transcription/) });
    expect((await undo(awaitingUpload, '*')).status).toBe(409);
    await expectUnchanged();
  });

  it('keeps corrected text out of the logs', async () => {
    const { etag } = await read(noteId);
    const secret = 'Confidential pelican merger codename';
    const response = await edit(noteId, [{ op: 'replace_text', segment: 0, text: secret }], etag);
    expect(response.status).toBe(200);
    expect(service.output()).not.toContain('pelican');
    expect((await undo(noteId, etagOf(response))).status).toBe(200);
  });
});

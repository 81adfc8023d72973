import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactKind } from '../../src/domain/artifacts.ts';
import type { ConversationSegment } from '../../src/domain/transcript.ts';
import type { SpeechSynthesizer } from '../../src/ports/speech-synthesizer.ts';
import { getGenerationServices } from '../../src/wiring/generation-services.ts';
import { ensureConversations, fixtureNamed } from '../fixtures/conversations/generate.ts';
import type { Api, ApiResponse } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * Speaker names over real HTTP, on a two-voice conversation transcribed by the local pipeline: names
 * kept apart from labels (`speaker` beside `speaker_label`), renamed any number of times, a segment
 * given to a new speaker, corrections that a rename never makes fail, and the names in every result
 * that names speakers (Insights, artifacts, exports, Ask), also after a rename made after generation.
 */
/** In this process: the podcast test listens to what the synthesizer is asked to say. */
let service: InProcessService;
let api: Api;
let noteId: string;
let labels: string[];

interface TranscriptBody {
  timestamped_full_text: string;
  conversation_segments: ConversationSegment[];
  revision: number;
}

beforeAll(async () => {
  // Workers on this thread: one test listens to what their speech synthesizer is asked to say.
  service = await startInProcess({ workersInProcess: true });
  ({ api } = service);
  const conversation = fixtureNamed(await ensureConversations(), 'two-speakers');
  noteId = randomUUID();
  await submitAndUpload(api, noteId, conversation.audio, 'audio/wav', 'Garden planning');
  const { final } = await pollUntilDone(api, transcriptPath());
  expect(final.status).toBe(200);
  const segments = final.body.conversation_segments as ConversationSegment[];
  labels = [...new Set(segments.map((segment) => segment.speaker))];
}, 240_000);
afterAll(() => service?.stop());

function transcriptPath(id = noteId): string {
  return `/v1/notes/${id}/transcription`;
}

async function read(id = noteId): Promise<{ body: TranscriptBody; etag: string }> {
  const response = await api<TranscriptBody>('GET', transcriptPath(id));
  expect(response.status).toBe(200);
  return { body: response.body, etag: etagOf(response) };
}

function etagOf(response: ApiResponse<unknown>): string {
  return String(response.headers.get('etag'));
}

function rename(names: Record<string, string | null>, id = noteId) {
  return api('PATCH', `/v1/notes/${id}`, { body: { speaker_names: names } });
}

function edit(edits: Record<string, unknown>[], ifMatch: string, id = noteId) {
  return api<TranscriptBody & { detail?: string }>('POST', `${transcriptPath(id)}/edits`, {
    body: { edits },
    headers: { 'if-match': ifMatch },
  });
}

async function exported(format: 'srt' | 'vtt' | 'md'): Promise<string> {
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  const response = await fetch(`${service.runtime.apiUrl}${transcriptPath()}?format=${format}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** The whole labels of `text` (so `Speaker 1` is not found inside `Speaker 10`). */
function labelsIn(text: string): string[] {
  return [...text.matchAll(/Speaker [0-9]+/g)].map((match) => match[0]);
}

/** The names every label of the conversation has now, `Speaker N` -> `prefix N`. */
function namesFor(prefix: string): Record<string, string> {
  return Object.fromEntries(labels.map((label) => [label, `${prefix} ${label.slice('Speaker '.length)}`]));
}

async function generateArtifact(kind: ArtifactKind): Promise<Record<string, unknown>> {
  const path = `/v1/notes/${noteId}/artifacts/${kind}`;
  const accepted = await api('POST', path, { body: { language: 'auto', regenerate: true } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const { final } = await pollUntilDone(api, path);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return final.body;
}

describe('speaker names kept apart from labels', () => {
  it('the diarizer found the conversation’s two voices (what the tests below rename)', () => {
    expect(labels).toEqual(['Speaker 1', 'Speaker 2']);
  });

  it('each segment shows its stable speaker_label beside the speaker, in getTranscription and getNote', async () => {
    const { body } = await read();
    for (const segment of body.conversation_segments) {
      expect(segment.speaker_label).toMatch(/^Speaker [0-9]+$/);
      expect(segment.speaker).toBe(segment.speaker_label);
    }
    const note = await api<{ transcription: TranscriptBody }>('GET', `/v1/notes/${noteId}`);
    // getNote leaves each segment's words out (getTranscription has them); the rest is the same.
    expect(note.body.transcription.conversation_segments).toEqual(
      body.conversation_segments.map(({ words: _words, ...segment }) => segment),
    );
  });

  it('renames the same speaker any number of times, and a null name brings the label back', async () => {
    const before = await read();
    for (const name of ['Alice', 'Bob', 'Carol']) {
      const renamed = await rename({ 'Speaker 1': name });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect(renamed.body.speaker_names).toEqual({ 'Speaker 1': name });
      const { body } = await read();
      const first = body.conversation_segments.filter((segment) => segment.speaker_label === 'Speaker 1');
      expect(first.length).toBeGreaterThan(0);
      expect(new Set(first.map((segment) => segment.speaker))).toEqual(new Set([name]));
      expect(body.timestamped_full_text).toContain(`] ${name}: `);
      // The labels never move: the same segments, each with the label it had.
      expect(body.conversation_segments.map((segment) => segment.speaker_label)).toEqual(
        before.body.conversation_segments.map((segment) => segment.speaker_label),
      );
    }
    expect((await rename({ 'Speaker 1': null })).body.speaker_names).toEqual({});
    expect((await read()).body.conversation_segments).toEqual(before.body.conversation_segments);
  });

  it('set_speaker gives a segment a new speaker (a label not used yet), an existing label or a name; anything else is 422 naming the next free label', async () => {
    await rename({ 'Speaker 2': 'Dana' });
    const original = await read();
    const last = original.body.conversation_segments.length - 1;
    const moved = await edit(
      [
        { op: 'set_speaker', segment: last, speaker: 'Speaker 3' },
        { op: 'set_speaker', segment: 0, speaker: 'Dana' },
      ],
      original.etag,
    );
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const segments = moved.body.conversation_segments;
    expect(segments[last]).toMatchObject({ speaker: 'Speaker 3', speaker_label: 'Speaker 3' });
    expect(segments[0]).toMatchObject({ speaker: 'Dana', speaker_label: 'Speaker 2' });

    // The new speaker is named like any other.
    await rename({ 'Speaker 3': 'Eve' });
    const named = await read();
    expect(named.body.conversation_segments[last]).toMatchObject({
      speaker: 'Eve',
      speaker_label: 'Speaker 3',
    });

    const unknown = await edit([{ op: 'set_speaker', segment: 1, speaker: 'Mallory' }], named.etag);
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toMatch(/"Mallory" is neither a speaker label nor the name/);
    expect(unknown.body.detail).toContain('"Speaker 4"');
    expect((await read()).etag).toBe(named.etag);

    // Back as the recogniser made it, for the tests that follow.
    const undone = await api('POST', `${transcriptPath()}/undo`, {
      body: { to: 'original' },
      headers: { 'if-match': named.etag },
    });
    expect(undone.status).toBe(200);
    await rename({ 'Speaker 2': null, 'Speaker 3': null });
  });

  it('merge_speakers gives every segment of a speaker heard apart to the one who said them, and one undo takes it back', async () => {
    await rename({ 'Speaker 1': 'Ada' });
    const original = await read();
    const before = original.body.conversation_segments;
    const merged = await edit([{ op: 'merge_speakers', speaker: 'Speaker 2', into: 'Ada' }], original.etag);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.conversation_segments.map((segment) => segment.speaker_label)).toEqual(
      before.map(() => 'Speaker 1'),
    );
    expect(merged.body.conversation_segments.map((segment) => segment.text)).toEqual(
      before.map((segment) => segment.text),
    );
    expect(merged.body.conversation_segments.every((segment) => segment.speaker === 'Ada')).toBe(true);

    const again = await edit(
      [{ op: 'merge_speakers', speaker: 'Speaker 2', into: 'Speaker 1' }],
      etagOf(merged),
    );
    expect(again.status).toBe(422);
    expect(again.body.detail).toMatch(/no segment is spoken by "Speaker 2"/);

    const undone = await api('POST', `${transcriptPath()}/undo`, {
      body: { to: 'previous' },
      headers: { 'if-match': etagOf(merged) },
    });
    expect(undone.status).toBe(200);
    expect((await read()).body.conversation_segments.map((segment) => segment.speaker_label)).toEqual(
      before.map((segment) => segment.speaker_label),
    );
    await rename({ 'Speaker 1': null });
  });
});

describe('a rename never makes a correction fail', () => {
  it('a correction sent with the ETag read before a rename succeeds; a real concurrent correction still gets 412', async () => {
    const held = await read();
    expect((await rename({ 'Speaker 1': 'Alice' })).status).toBe(200);

    // The body changed, so its ETag did: a cache revalidating with the old one gets the new body.
    const revalidated = await api<TranscriptBody>('GET', transcriptPath(), {
      headers: { 'if-none-match': held.etag },
    });
    expect(revalidated.status).toBe(200);
    expect(etagOf(revalidated)).not.toBe(held.etag);
    expect(revalidated.body.conversation_segments[0]?.speaker).toBe('Alice');
    const unchanged = await api('GET', transcriptPath(), {
      headers: { 'if-none-match': etagOf(revalidated) },
    });
    expect(unchanged.status).toBe(304);

    const mine = await edit([{ op: 'replace_text', segment: 0, text: 'Good morning to you.' }], held.etag);
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.conversation_segments[0]).toMatchObject({
      text: 'Good morning to you.',
      speaker: 'Alice',
      speaker_label: 'Speaker 1',
    });
    expect(etagOf(mine)).toBe((await read()).etag);

    // Someone else's correction, made against the same revision, did change the segments.
    const theirs = await edit([{ op: 'replace_text', segment: 1, text: 'Another change.' }], held.etag);
    expect(theirs.status).toBe(412);
    expect((await read()).body.conversation_segments[1]?.text).not.toBe('Another change.');

    // And a rename right after a correction leaves the correction's ETag good for the next one.
    expect((await rename({ 'Speaker 1': 'Alicia' })).status).toBe(200);
    const next = await edit([{ op: 'replace_text', segment: 0, text: 'Good morning.' }], etagOf(mine));
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.revision).toBe(mine.body.revision + 1);
  });
});

describe('a correction never makes a rename fail', () => {
  it("a rename sent with the note's ETag read before a correction succeeds; one racing another rename still gets 412", async () => {
    const before = await api('GET', `/v1/notes/${noteId}`);
    const noteEtag = etagOf(before);
    const { etag } = await read();
    expect((await edit([{ op: 'replace_text', segment: 0, text: 'Good morning all.' }], etag)).status).toBe(
      200,
    );

    // The note embeds the transcript: its representation, and so its ETag, changed.
    const changed = await api('GET', `/v1/notes/${noteId}`, { headers: { 'if-none-match': noteEtag } });
    expect(changed.status).toBe(200);
    expect(etagOf(changed)).not.toBe(noteEtag);

    const renamed = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Alba' } },
      headers: { 'if-match': noteEtag },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const racing = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 1': 'Someone else' } },
      headers: { 'if-match': noteEtag },
    });
    expect(racing.status).toBe(412);
    expect((await api('GET', `/v1/notes/${noteId}`)).body.speaker_names).toMatchObject({
      'Speaker 1': 'Alba',
    });
    expect(etagOf(renamed)).toBe(etagOf(await api('GET', `/v1/notes/${noteId}`)));
  });
});

describe('names wherever speakers are named', () => {
  it('exports (SubRip, WebVTT, Markdown) name the speakers', async () => {
    await rename(namesFor('Person'));
    const [srt, vtt, md] = await Promise.all([exported('srt'), exported('vtt'), exported('md')]);
    expect(srt).toContain('Person 1: ');
    expect(vtt).toContain('<v Person 2>');
    expect(md).toContain('**Person 1**');
    for (const text of [srt, vtt, md]) expect(labelsIn(text)).toEqual([]);
  });

  it('Insights name the speakers in talk time and as owners, and follow a rename made after generation', async () => {
    await rename(namesFor('Person'));
    // A commitment in the first person, whoever the recogniser heard: its owner is who said it.
    const { body, etag } = await read();
    const first = body.conversation_segments.findIndex((segment) => segment.speaker_label === 'Speaker 1');
    const committed = await edit(
      [{ op: 'replace_text', segment: first, text: 'I will send the budget report by Friday.' }],
      etag,
    );
    expect(committed.status).toBe(200);
    expect((await api('POST', `/v1/notes/${noteId}/insights`, { body: {} })).status).toBe(202);
    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/insights`);
    expect(final.status, JSON.stringify(final.body)).toBe(200);
    const speakers = final.body.speakers as { speaker: string; speaker_label: string }[];
    expect(speakers.map((entry) => entry.speaker_label).sort()).toEqual(labels);
    expect(speakers.map((entry) => entry.speaker).sort()).toEqual(['Person 1', 'Person 2']);
    const items = final.body.action_items as { text: string; owner: string | null }[];
    expect(items.find((item) => /budget report/i.test(item.text))?.owner).toBe('Person 1');
    expect(labelsIn(JSON.stringify(final.body)).sort()).toEqual(labels);

    await rename(namesFor('Renamed'));
    const after = await api('GET', `/v1/notes/${noteId}/insights`);
    const shown = JSON.stringify(after.body);
    expect(shown).not.toContain('Person ');
    expect((after.body.speakers as { speaker: string }[]).map((entry) => entry.speaker).sort()).toEqual([
      'Renamed 1',
      'Renamed 2',
    ]);
    const renamedItems = after.body.action_items as { text: string; owner: string | null }[];
    expect(renamedItems.find((item) => /budget report/i.test(item.text))?.owner).toBe('Renamed 1');
    const note = await api<{ insights: unknown }>('GET', `/v1/notes/${noteId}`);
    expect(note.body.insights).toEqual(after.body);
  });

  it('the epiphany, the research brief and the podcast script name the speakers, also after a later rename; the podcast says the names given when it was made', async () => {
    await rename(namesFor('Person'));
    // The real synthesizer voices the podcast; this only notes what it is asked to say.
    const services = getGenerationServices();
    const voices = services.voices;
    const spoken: string[] = [];
    const listening: SpeechSynthesizer = {
      name: voices.name,
      hostVoices: (language) => voices.hostVoices(language),
      synthesize: (lines, path, signal) => {
        spoken.push(...lines.map((line) => line.text));
        return voices.synthesize(lines, path, signal);
      },
    };
    Object.assign(services, { voices: listening });
    try {
      for (const kind of ['epiphany', 'deep_research', 'podcast'] as const) {
        const artifact = await generateArtifact(kind);
        const content = JSON.stringify(artifact.content);
        expect(content, kind).toMatch(/Person [12]/);
        // Only the speakers' labels are named; nothing says "Speaker N" for a named speaker.
        expect(labelsIn(content), kind).toEqual([]);
      }
    } finally {
      Object.assign(services, { voices });
    }
    expect(spoken.join(' ')).toMatch(/Person [12]/);
    expect(labelsIn(spoken.join(' '))).toEqual([]);

    await rename(namesFor('Renamed'));
    for (const kind of ['epiphany', 'deep_research', 'podcast'] as const) {
      const response = await api('GET', `/v1/notes/${noteId}/artifacts/${kind}`);
      expect(response.status).toBe(200);
      const content = JSON.stringify(response.body.content);
      expect(content, kind).toMatch(/Renamed [12]/);
      expect(content, kind).not.toContain('Person ');
      expect(labelsIn(content), kind).toEqual([]);
    }
  });

  it('search results name each matching segment’s speaker beside its label', async () => {
    await rename(namesFor('Person'));
    type Found = {
      results: { note: { note_id: string }; segments: { speaker: string; speaker_label: string }[] }[];
    };
    const response = await api<Found>('GET', '/v1/search?q=hardware');
    expect(response.status).toBe(200);
    const segments = response.body.results.find((result) => result.note.note_id === noteId)?.segments ?? [];
    expect(segments.length).toBeGreaterThan(0);
    for (const segment of segments) {
      expect(segment.speaker_label).toMatch(/^Speaker [12]$/);
      expect(segment.speaker).toBe(`Person ${segment.speaker_label.slice('Speaker '.length)}`);
    }
  });

  it('Ask names who said what in its answer and in each citation', async () => {
    await rename(namesFor('Person'));
    const response = await api<{ answer: string; citations: { note_id: string; speakers: string[] }[] }>(
      'POST',
      '/v1/ask',
      { body: { question: 'Who will ask the hardware store about hoses?', note_ids: [noteId] } },
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.answer).toMatch(/Person [12]: "/);
    expect(response.body.citations.length).toBeGreaterThan(0);
    for (const citation of response.body.citations) {
      expect(citation.speakers.length).toBeGreaterThan(0);
      for (const speaker of citation.speakers) expect(speaker).toMatch(/^Person [12]$/);
    }
    expect(labelsIn(JSON.stringify(response.body))).toEqual([]);
  });
});

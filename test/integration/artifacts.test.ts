import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ArtifactKind,
  type DeepResearchContent,
  deepResearchContent,
  type Evidence,
  epiphanyContent,
  isQuoteOf,
  podcastScript,
} from '../../src/domain/artifacts.ts';
import type { ConversationSegment } from '../../src/domain/transcript.ts';
import type { ArtifactEngine } from '../../src/ports/artifact-engine.ts';
import { GenerationFailedError } from '../../src/ports/generation-errors.ts';
import { getGenerationServices } from '../../src/wiring/generation-services.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { findEverywhere } from '../support/storage.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/** The local runtime in this process (workers included), so one test can swap the artifact engine. */
let service: InProcessService;
let api: Api;
let noteId: string;
let segments: ConversationSegment[];

beforeAll(async () => {
  service = await startInProcess({ workersInProcess: true });
  ({ api } = service);
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('two-speakers fixture missing');
  noteId = randomUUID();
  await submitAndUpload(api, noteId, conversation.audio, 'audio/wav', 'Planning meeting');
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
  expect(final.status).toBe(200);
  segments = final.body.conversation_segments as ConversationSegment[];
});
afterAll(() => service?.stop());

const artifactPath = (kind: ArtifactKind, id = noteId) => `/v1/notes/${id}/artifacts/${kind}`;

async function generate(kind: ArtifactKind, regenerate = false): Promise<Record<string, unknown>> {
  const accepted = await api('POST', artifactPath(kind), { body: { language: 'auto', regenerate } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  expect(accepted.body).toMatchObject({ note_id: noteId, kind: `artifact:${kind}`, status: 'queued' });
  const { final } = await pollUntilDone(api, artifactPath(kind));
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  expect(final.body).toMatchObject({ note_id: noteId, kind, schema_version: 1, language: 'en-US' });
  return final.body;
}

/** Every piece of evidence quotes, verbatim, the transcript segment it points at. */
function expectGrounded(evidence: Evidence[]): void {
  expect(evidence.length).toBeGreaterThan(0);
  for (const { start_ms, quote } of evidence) {
    const segment = segments.find((candidate) => candidate.start_ms === start_ms);
    expect(segment, `no segment starts at ${start_ms}`).toBeDefined();
    expect(isQuoteOf(quote, segment?.text ?? ''), `"${quote}" is not in the segment at ${start_ms}`).toBe(
      true,
    );
  }
}

describe('artifacts over HTTP on the local runtime', () => {
  it('generates an epiphany whose ideas quote the transcript', async () => {
    const artifact = await generate('epiphany');
    expect(artifact.engine).toBe('local-extractive');
    const content = epiphanyContent.parse(artifact.content);
    for (const idea of content.ideas) expectGrounded(idea.evidence);
  });

  it('generates a research brief whose claims and questions quote the transcript', async () => {
    const artifact = await generate('deep_research');
    const content = deepResearchContent.parse(artifact.content);
    expect(content.summary.length).toBeGreaterThan(0);
    for (const claim of content.claims) expectGrounded(claim.evidence);
    for (const question of content.research_questions) expectGrounded(question.evidence);
    expect(content.claims.length + content.research_questions.length).toBeGreaterThan(0);
  });

  it('generates a two-host podcast whose audio downloads and decodes to the stated length', async () => {
    const artifact = await generate('podcast');
    expect(artifact.engine).toBe('local-extractive+flite');
    const content = artifact.content as {
      hosts: { id: string; voice: string }[];
      script: unknown[];
      audio: { url: string; duration_ms: number; bytes: number; content_type: string; expires_at: number };
    };
    const script = podcastScript.parse({ lines: content.script });
    expect(new Set(script.lines.map((line) => line.host))).toEqual(new Set(['host_1', 'host_2']));
    const starts = new Set(segments.map((segment) => segment.start_ms));
    const cited = script.lines.flatMap((line) => line.citations);
    expect(cited.length).toBeGreaterThan(0);
    for (const start of cited) expect(starts.has(start)).toBe(true);
    expect(content.hosts.map((host) => host.voice)).toEqual(['slt', 'rms']);

    // The link is presigned: no API key, straight from the object store.
    const download = await fetch(content.audio.url);
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(content.audio.bytes);
    const dir = await mkdtemp(join(tmpdir(), 'notes-podcast-test-'));
    try {
      const file = join(dir, 'podcast.mp3');
      await writeFile(file, bytes);
      const { stdout } = await promisify(execFile)('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_name:format=duration',
        '-of',
        'json',
        file,
      ]);
      const probe = JSON.parse(stdout) as { streams: { codec_name: string }[]; format: { duration: string } };
      expect(probe.streams[0]?.codec_name).toBe('mp3');
      const decodedMs = Number(probe.format.duration) * 1000;
      expect(decodedMs).toBeGreaterThan(5_000);
      expect(Math.abs(decodedMs - content.audio.duration_ms)).toBeLessThan(content.audio.duration_ms * 0.05);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers 200 with the existing artifact, and 202 again when asked to regenerate', async () => {
    const first = await api('GET', artifactPath('epiphany'));
    expect(first.status).toBe(200);
    const again = await api('POST', artifactPath('epiphany'));
    expect(again.status).toBe(200);
    expect(again.body.generated_at).toBe(first.body.generated_at);

    const regenerated = await api('POST', artifactPath('epiphany'), { body: { regenerate: true } });
    expect(regenerated.status).toBe(202);
    const { final } = await pollUntilDone(api, artifactPath('epiphany'));
    expect(final.status).toBe(200);
    expect(final.body.generated_at as number).toBeGreaterThan(first.body.generated_at as number);
  });

  it('refuses languages the local engines cannot produce with 422, and malformed input with 400', async () => {
    const german = await api('POST', artifactPath('deep_research'), { body: { language: 'de' } });
    expect(german.status).toBe(422);
    expect(german.body.detail).toMatch(/'de' is not supported.*transcript/);
    const japanesePodcast = await api('POST', artifactPath('podcast'), {
      body: { language: 'ja', regenerate: true },
    });
    expect(japanesePodcast.status).toBe(422);
    expect(
      (await api('POST', artifactPath('epiphany'), { body: { language: 'en', regenerate: false } })).status,
    ).toBe(200);
    for (const body of [{ language: 'english' }, { regenerate: 'yes' }, { depth: 1 }]) {
      expect((await api('POST', artifactPath('epiphany'), { body })).status).toBe(400);
    }
    expect((await api('POST', `/v1/notes/${noteId}/artifacts/poem`)).status).toBe(400);
    expect((await api('GET', `/v1/notes/${noteId}/artifacts/poem`)).status).toBe(400);
  });

  it('answers 409 without a completed transcription or for a trashed note, 404 when nothing was generated', async () => {
    const pending = randomUUID();
    await api('POST', `/v1/notes/${pending}/transcription`, {
      body: { title: 'x', content_type: 'audio/wav', size_bytes: 10 },
    });
    const early = await api('POST', artifactPath('podcast', pending));
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/completed transcription/);
    expect((await api('GET', artifactPath('podcast', pending))).status).toBe(404);
    expect((await api('POST', artifactPath('podcast', randomUUID()))).status).toBe(404);

    await api('PATCH', `/v1/notes/${noteId}`, { body: { state: 'trashed' } });
    try {
      expect((await api('POST', artifactPath('epiphany'), { body: { regenerate: true } })).status).toBe(409);
    } finally {
      await api('PATCH', `/v1/notes/${noteId}`, { body: { state: 'active' } });
    }
  });

  it("hides one account's artifacts from another (404 on both operations)", async () => {
    const other = await service.otherAccount('artifact-stranger');
    for (const kind of ['epiphany', 'deep_research', 'podcast'] as const) {
      expect((await other('POST', artifactPath(kind))).status).toBe(404);
      expect((await other('GET', artifactPath(kind))).status).toBe(404);
    }
  });

  it('ends a job whose engine throws as failed with a detail, and a retry succeeds', async () => {
    const services = getGenerationServices();
    const working = services.artifacts;
    const broken: ArtifactEngine = {
      name: 'broken',
      followsInstructions: false,
      generateArtifact: async () => {
        throw new GenerationFailedError('The text engine returned no usable output');
      },
    };
    Object.assign(services, { artifacts: broken });
    try {
      expect((await api('POST', artifactPath('deep_research'), { body: { regenerate: true } })).status).toBe(
        202,
      );
      const { final } = await pollUntilDone(api, artifactPath('deep_research'));
      expect(final.status).toBe(409);
      expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
      expect(final.body.detail).toMatch(/no usable output.*Request the artifact again/);
    } finally {
      Object.assign(services, { artifacts: working });
    }
    expect((await api('POST', artifactPath('deep_research'))).status).toBe(202);
    expect((await pollUntilDone(api, artifactPath('deep_research'))).final.status).toBe(200);
  });

  it('stores each claim once when the engine repeats itself, as a model can (issue 39)', async () => {
    const services = getGenerationServices();
    const working = services.artifacts;
    const first = segments[0] as ConversationSegment;
    const quote = first.text.split(/\s+/).slice(0, 6).join(' ');
    const claim = { claim: `${quote}.`, evidence: [{ start_ms: first.start_ms, quote }] };
    const repeating: ArtifactEngine = {
      name: 'repeating',
      followsInstructions: false,
      generateArtifact: async (request) => {
        const draft = (await working.generateArtifact(request)) as DeepResearchContent;
        const again = { claim: claim.claim.toUpperCase(), evidence: claim.evidence };
        return { ...draft, claims: [claim, ...draft.claims, again, claim] } as never;
      },
    };
    Object.assign(services, { artifacts: repeating });
    try {
      const artifact = await generate('deep_research', true);
      const { claims } = deepResearchContent.parse(artifact.content);
      expect(claims.filter((item) => item.claim.toLowerCase() === claim.claim.toLowerCase())).toEqual([
        claim,
      ]);
      expect(new Set(claims.map((item) => item.claim.toLowerCase())).size).toBe(claims.length);
    } finally {
      Object.assign(services, { artifacts: working });
    }
  });

  it('removes every artifact, audio included, with the transcription', async () => {
    expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    for (const kind of ['epiphany', 'deep_research', 'podcast'] as const) {
      expect((await api('GET', artifactPath(kind))).status).toBe(404);
    }
    const left = await findEverywhere(service.runtime, noteId);
    expect(left.objects.filter((key) => key.includes('/artifacts/'))).toEqual([]);
    expect(left.items.filter((item) => JSON.stringify(item).includes('artifact:'))).toEqual([]);
  });
});

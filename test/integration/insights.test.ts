import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BedrockInsightsEngine } from '../../src/adapters/llm/bedrock-insights.ts';
import { insightsContent } from '../../src/domain/insights.ts';
import { GenerationFailedError } from '../../src/ports/generation-errors.ts';
import type { InsightsEngine } from '../../src/ports/insights-engine.ts';
import { getGenerationServices } from '../../src/wiring/generation-services.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import type { Api } from '../support/api.ts';
import { standInClient, startBedrockStandIn } from '../support/bedrock-stand-in.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/** The whole local runtime in this process (workers included), so one test can swap the text engine. */
let service: InProcessService;
let api: Api;
let noteId: string;

beforeAll(async () => {
  service = await startInProcess({ workersInProcess: true });
  ({ api } = service);
  const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
  if (!conversation) throw new Error('two-speakers fixture missing');
  noteId = randomUUID();
  await submitAndUpload(api, noteId, conversation.audio, 'audio/wav', 'Planning meeting');
  expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
});
afterAll(() => service?.stop());

describe('Insights over HTTP on the local runtime', () => {
  it('generates Insights for a transcribed note: 202, then 200 with items that cite real segments', async () => {
    const accepted = await api('POST', `/v1/notes/${noteId}/insights`);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ note_id: noteId, kind: 'insights', status: 'queued' });

    const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/insights`);
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({ note_id: noteId, schema_version: 1, engine: 'local-extractive' });
    const content = insightsContent.parse(final.body);
    const transcription = await api('GET', `/v1/notes/${noteId}/transcription`);
    const starts = new Set(
      (transcription.body.conversation_segments as Array<{ start_ms: number }>).map(
        (segment) => segment.start_ms,
      ),
    );
    const cited = [
      ...content.summary.citations,
      ...content.key_points.flatMap((item) => item.citations),
      ...content.topics.flatMap((item) => item.citations),
      ...content.action_items.flatMap((item) => item.citations),
      ...content.decisions.flatMap((item) => item.citations),
      ...content.open_questions.flatMap((item) => item.citations),
    ];
    expect(cited.length).toBeGreaterThan(0);
    for (const start of cited) expect(starts.has(start)).toBe(true);
    expect(content.speakers.map((speaker) => speaker.speaker).sort()).toEqual(['Speaker 1', 'Speaker 2']);

    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.insights).toEqual(final.body);
  });

  it('answers 409 for a note without a completed transcription, and 404 for Insights never requested', async () => {
    const pending = randomUUID();
    await api('POST', `/v1/notes/${pending}/transcription`, {
      body: { title: 'x', content_type: 'audio/wav', size_bytes: 10 },
    });
    const early = await api('POST', `/v1/notes/${pending}/insights`, { body: {} });
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/completed transcription/);
    const never = await api('GET', `/v1/notes/${pending}/insights`);
    expect(never.status).toBe(404);
    const unknownBody = await api('POST', `/v1/notes/${noteId}/insights`, { body: { depth: 'deep' } });
    expect(unknownBody.status).toBe(400);
  });

  it('hides one account’s Insights from another (404 on both operations)', async () => {
    const other = await service.otherAccount('other');
    expect((await other('POST', `/v1/notes/${noteId}/insights`)).status).toBe(404);
    expect((await other('GET', `/v1/notes/${noteId}/insights`)).status).toBe(404);
  });

  it('ends a job whose engine throws as failed with a detail, and a retry succeeds', async () => {
    const services = getGenerationServices();
    const working = services.insights;
    const broken: InsightsEngine = {
      name: 'broken',
      followsInstructions: false,
      generateInsights: async () => {
        throw new GenerationFailedError('The text engine returned no usable output');
      },
    };
    Object.assign(services, { insights: broken });
    try {
      expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/insights`);
      expect(final.status).toBe(409);
      expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
      expect(final.body.detail).toMatch(/no usable output.*Generate the Insights again/);
    } finally {
      Object.assign(services, { insights: working });
    }
    expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
    expect((await pollUntilDone(api, `/v1/notes/${noteId}/insights`)).final.status).toBe(200);
  });

  it('stores each action item once when the engine repeats itself, as a model can (issue 39)', async () => {
    const services = getGenerationServices();
    const working = services.insights;
    const transcription = await api('GET', `/v1/notes/${noteId}/transcription`);
    const [first, second] = (transcription.body.conversation_segments as Array<{ start_ms: number }>).map(
      (segment) => segment.start_ms,
    );
    const task = { text: 'Send the budget spreadsheet to finance.', owner: null, due_date: null };
    const repeating: InsightsEngine = {
      name: 'repeating',
      followsInstructions: false,
      generateInsights: async (request) => ({
        ...(await working.generateInsights(request)),
        action_items: [
          { ...task, citations: [first ?? 0] },
          {
            ...task,
            text: 'send the budget spreadsheet to finance',
            owner: 'Priya',
            citations: [second ?? 0],
          },
          { ...task, text: 'Send the budget spreadsheet to finance!', citations: [second ?? 0] },
        ],
      }),
    };
    Object.assign(services, { insights: repeating });
    try {
      expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/insights`);
      expect(final.status).toBe(200);
      expect(insightsContent.parse(final.body).action_items).toEqual([
        { ...task, owner: 'Priya', citations: [first ?? 0] },
      ]);
    } finally {
      Object.assign(services, { insights: working });
    }
  });

  it('fails the job with what the operator must fix when Bedrock retired the model', async () => {
    const services = getGenerationServices();
    const working = services.insights;
    const bedrock = await startBedrockStandIn();
    const client = standInClient(bedrock);
    bedrock.replies.push({
      error: 'ValidationException',
      status: 400,
      message:
        'This model version has reached the end of its life. Please refer to the AWS documentation for more details.',
    });
    Object.assign(services, {
      insights: new BedrockInsightsEngine(client, {
        modelId: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
      }),
    });
    try {
      expect((await api('POST', `/v1/notes/${noteId}/insights`)).status).toBe(202);
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/insights`);
      expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
      expect(final.body.detail).toMatch(
        /^The text engine is not configured correctly: model us\.anthropic\.claude-3-7-sonnet-20250219-v1:0 has reached end of life on Amazon Bedrock\. Choose a current model or inference profile .* and redeploy\. /,
      );
      expect(bedrock.calls).toEqual(['/model/us.anthropic.claude-3-7-sonnet-20250219-v1:0/converse']);
    } finally {
      Object.assign(services, { insights: working });
      client.destroy();
      await bedrock.close();
    }
  });

  it('removes the Insights with the transcription', async () => {
    expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    expect((await api('GET', `/v1/notes/${noteId}/insights`)).status).toBe(404);
    expect((await api('GET', `/v1/notes/${noteId}`)).body.insights).toBeNull();
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BedrockAnswerEngine } from '../../src/adapters/llm/bedrock-answer.ts';
import { formatTimestamp } from '../../src/domain/transcript.ts';
import { getAskServices } from '../../src/wiring/ask-services.ts';
import { ensureAskFixtures } from '../fixtures/ask/generate.ts';
import { FakeConverseClient, invalidRequest, throttled, toolUseResponse } from '../fixtures/llm/converse.ts';
import type { Api } from '../support/api.ts';
import { standInClient, startBedrockStandIn } from '../support/bedrock-stand-in.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { findEverywhere } from '../support/storage.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * Ask over HTTP against notes transcribed by the real local pipeline (flite recordings -> pocketsphinx).
 * The fixture set (test/fixtures/ask/notes.json) holds five notes on different topics and questions
 * whose supporting note is known.
 */
let service: InProcessService;
let api: Api;
let questions: { question: string; note: string }[];
/** Fixture name -> note ID. */
const ids = new Map<string, string>();
const fullText = new Map<string, string>();

interface AskBody {
  answer: string;
  note_ids: string[];
  citations: {
    note_id: string;
    note_title: string;
    start_ms: number;
    end_ms: number;
    quote: string;
    sentence: string;
    sentence_start_ms: number;
  }[];
}

beforeAll(async () => {
  service = await startInProcess();
  ({ api } = service);
  const fixtures = await ensureAskFixtures();
  questions = fixtures.questions;
  for (const note of fixtures.notes) {
    const id = randomUUID();
    ids.set(note.name, id);
    await submitAndUpload(api, id, note.audio, 'audio/wav', note.title);
  }
  for (const id of ids.values()) {
    const { final } = await pollUntilDone(api, `/v1/notes/${id}/transcription`);
    expect(final.status).toBe(200);
    fullText.set(id, String(final.body.full_text));
  }
}, 300_000);
afterAll(() => service?.stop());

const ask = (body: unknown, client: Api = api) => client<AskBody>('POST', '/v1/ask', { body });
const idOf = (name: string) => ids.get(name) ?? '';

describe('Ask over HTTP on the local runtime', () => {
  it('finds the supporting note for every fixture question, with citations quoting its transcript', async () => {
    expect(questions.length).toBeGreaterThanOrEqual(10);
    const misses: string[] = [];
    for (const { question, note } of questions) {
      const response = await ask({ question });
      expect(response.status, question).toBe(200);
      const { answer, note_ids, citations } = response.body;
      if (note_ids[0] !== idOf(note)) misses.push(`${question} -> ${note_ids.join(',')} (expected ${note})`);
      expect(answer.length).toBeGreaterThan(0);
      expect(citations.length).toBeGreaterThan(0);
      for (const citation of citations) {
        expect(note_ids).toContain(citation.note_id);
        expect(citation.end_ms).toBeGreaterThan(citation.start_ms);
        expect(fullText.get(citation.note_id)).toContain(citation.quote.replace(/…$/, ''));
        // The cited sentence is the one the extractive answer quotes, said within the passage (these
        // recordings give one unpunctuated sentence per segment; test/unit/cited-sentence.test.ts
        // shows a sentence further into a passage).
        expect(answer).toContain(citation.sentence.replace(/"/g, '').slice(0, 60));
        expect(citation.sentence_start_ms).toBeGreaterThanOrEqual(citation.start_ms);
        expect(citation.sentence_start_ms).toBeLessThan(citation.end_ms);
        expect(citation.note_title.length).toBeGreaterThan(0);
        // The answer's own time for the quote is that sentence's, as the citation's link opens it.
        expect(answer).toContain(`(${formatTimestamp(citation.sentence_start_ms)}): `);
      }
    }
    expect(misses).toEqual([]);
  });

  it('narrows the search to the listed notes', async () => {
    const scoped = await ask({
      question: 'How big is the marketing budget?',
      note_ids: [idOf('garden'), idOf('doctor')],
    });
    expect(scoped.status).toBe(200);
    for (const id of scoped.body.note_ids) expect([idOf('garden'), idOf('doctor')]).toContain(id);
    const right = await ask({ question: 'How big is the marketing budget?', note_ids: [idOf('budget')] });
    expect(right.body.note_ids).toEqual([idOf('budget')]);
  });

  it('says so, citing nothing, when no note covers the question', async () => {
    const response = await ask({ question: 'Which quantum entanglement experiments failed?' });
    expect(response.status).toBe(200);
    expect(response.body.note_ids).toEqual([]);
    expect(response.body.citations).toEqual([]);
    expect(response.body.answer).toMatch(/cover/);
  });

  it('never cites a trashed note, and cites it again once it is restored', async () => {
    const question = { question: 'What do the children want to do on the trip?' };
    await api('PATCH', `/v1/notes/${idOf('holiday')}`, { body: { state: 'trashed' } });
    const trashed = await ask(question);
    expect(trashed.status).toBe(200);
    expect(trashed.body.note_ids).not.toContain(idOf('holiday'));
    const scoped = await ask({ ...question, note_ids: [idOf('holiday')] });
    expect(scoped.status).toBe(400);

    await api('PATCH', `/v1/notes/${idOf('holiday')}`, { body: { state: 'active' } });
    expect((await ask(question)).body.note_ids[0]).toBe(idOf('holiday'));
  });

  it('never cites a note whose transcription was deleted, nor a deleted note', async () => {
    expect((await api('DELETE', `/v1/notes/${idOf('hiring')}/transcription`)).status).toBe(204);
    const afterResults = await ask({ question: 'How many engineers do we need to hire?' });
    expect(afterResults.body.note_ids).not.toContain(idOf('hiring'));

    expect((await api('DELETE', `/v1/notes/${idOf('doctor')}`)).status).toBe(204);
    const afterNote = await ask({ question: 'How often should I take the medicine?' });
    expect(afterNote.status).toBe(200);
    expect(afterNote.body.note_ids).not.toContain(idOf('doctor'));
    expect(afterNote.body.citations.map((citation) => citation.note_id)).not.toContain(idOf('doctor'));
    // Its index entries went with it: nothing in the table or the bucket names the note.
    expect(await findEverywhere(service.runtime, idOf('doctor'))).toEqual({
      items: [],
      objects: [],
    });
  });

  it("never answers from another account's notes", async () => {
    const stranger = await service.otherAccount('ask-stranger');
    const all = await ask({ question: 'How big is the marketing budget?' }, stranger);
    expect(all.status).toBe(400);
    expect(JSON.stringify(all.body)).toMatch(/no processed notes/);
    const scoped = await ask(
      { question: 'How big is the marketing budget?', note_ids: [idOf('budget')] },
      stranger,
    );
    expect(scoped.status).toBe(400);
    expect(JSON.stringify(scoped.body)).not.toContain('budget review');
  });

  it('answers every validation error of the spec with 400 (415 for a non-JSON body)', async () => {
    const cases: unknown[] = [
      {},
      { question: '' },
      { question: '   ' },
      { question: 'x'.repeat(2001) },
      { question: 42 },
      { question: 'ok', note_ids: Array.from({ length: 101 }, () => randomUUID()) },
      { question: 'ok', note_ids: ['not-a-uuid'] },
      { question: 'ok', note_ids: 'all' },
      { question: 'ok', extra: true },
    ];
    for (const body of cases) {
      const response = await ask(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(typeof (response.body as unknown as { detail: string }).detail).toBe('string');
    }
    expect((await ask({ question: 'x'.repeat(2000), note_ids: null })).status).toBe(200);
    expect(
      (
        await api('POST', '/v1/ask', {
          rawBody: '{"question":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await api('POST', '/v1/ask', { rawBody: 'question=hi', headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(415);
    expect((await api('POST', '/v1/ask', { key: null, body: { question: 'hi' } })).status).toBe(401);
  });

  it('maps a throttled Bedrock answer to 429 and a failed one to 502, and uses its grounded answer', async () => {
    const askServices = getAskServices();
    const local = askServices.answers;
    const bedrock = (script: ConstructorParameters<typeof FakeConverseClient>[0]) =>
      new BedrockAnswerEngine(new FakeConverseClient(script), {
        modelId: 'test-model',
        maxRetries: 1,
        baseDelayMs: 1,
      });
    const question = { question: 'How big is the marketing budget?' };
    try {
      askServices.answers = bedrock([throttled(), throttled()]);
      const busy = await ask(question);
      expect(busy.status).toBe(429);
      expect(busy.body).toEqual({ detail: 'The AI provider is temporarily rate-limited; retry later.' });

      askServices.answers = bedrock([invalidRequest()]);
      const failed = await ask(question);
      expect(failed.status).toBe(502);
      expect(failed.body).toEqual({ detail: 'An answer could not be generated; retry later.' });

      // A well-formed answer: its citation is mapped back to the passage the model was shown.
      askServices.answers = new BedrockAnswerEngine(
        {
          converse: async (input) => {
            const shown = JSON.stringify(input.messages);
            const [, noteId, start] = /\[([0-9a-f-]{36}) (\d+)-\d+\]/.exec(shown) ?? [];
            return toolUseResponse('record_answer', {
              answer: 'Two hundred thousand dollars.',
              citations: [{ note_id: noteId, start_ms: Number(start) }],
            });
          },
        },
        { modelId: 'test-model', maxRetries: 0 },
      );
      const answered = await ask(question);
      expect(answered.status).toBe(200);
      expect(answered.body.answer).toBe('Two hundred thousand dollars.');
      expect(answered.body.note_ids).toEqual([idOf('budget')]);
      // A model's answer gets its cited sentence the same way: the one it paraphrases, in the passage.
      const [cited] = answered.body.citations;
      expect(cited?.quote).toContain(cited?.sentence ?? 'missing');
      expect(cited?.sentence_start_ms).toBeGreaterThanOrEqual(cited?.start_ms ?? Number.NaN);
      expect(cited?.sentence_start_ms).toBeLessThan(cited?.end_ms ?? Number.NaN);
    } finally {
      askServices.answers = local;
    }
  });

  it('a denied Bedrock model answers 503 saying what to fix, and a silent one 504 at the time limit', async () => {
    const askServices = getAskServices();
    const local = askServices.answers;
    const bedrock = await startBedrockStandIn();
    const client = standInClient(bedrock);
    const modelId = 'us.anthropic.claude-sonnet-4-6';
    const question = { question: 'How big is the marketing budget?' };
    try {
      askServices.answers = new BedrockAnswerEngine(client, { modelId, timeoutMs: 1_000, baseDelayMs: 1 });
      bedrock.replies.push({
        error: 'AccessDeniedException',
        status: 403,
        message: "You don't have access to the model with the specified model ID.",
      });
      const denied = await ask(question);
      expect(denied.status).toBe(503);
      expect((denied.body as unknown as { detail: string }).detail).toMatch(
        /^The text engine is not configured correctly: Bedrock denied access to us\.anthropic\.claude-sonnet-4-6\. Enable access/,
      );
      expect(bedrock.calls).toEqual([`/model/${modelId}/converse`]);

      bedrock.replies.push({ silent: true });
      const silent = await ask(question);
      expect(silent.status).toBe(504);
      expect(silent.body).toEqual({
        detail: 'The AI provider gave no answer within 1 s; retry later, or ask about fewer notes.',
      });
      // The request was abandoned, not left running after the answer.
      await expect.poll(() => bedrock.abandoned).toBe(1);
    } finally {
      askServices.answers = local;
      client.destroy();
      await bedrock.close();
    }
  });
});

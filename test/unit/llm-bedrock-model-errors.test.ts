import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BedrockAnswerEngine } from '../../src/adapters/llm/bedrock-answer.ts';
import type { ConverseClient } from '../../src/adapters/llm/bedrock-converse.ts';
import { BedrockInsightsEngine } from '../../src/adapters/llm/bedrock-insights.ts';
import type { Transcription } from '../../src/domain/transcript.ts';
import { toErrorResponse } from '../../src/http/error-mapper.ts';
import { logger } from '../../src/logging.ts';
import type { AnswerRequest } from '../../src/ports/answer-engine.ts';
import {
  GenerationFailedError,
  ProviderMisconfiguredError,
  ProviderTimedOutError,
} from '../../src/ports/generation-errors.ts';
import {
  accessDenied,
  endOfLife,
  FakeConverseClient,
  invalidModel,
  invalidRequest,
  legacyModelNotFound,
  onDemandUnsupported,
  SilentConverseClient,
  throttled,
} from '../fixtures/llm/converse.ts';

const PROFILE = 'us.anthropic.claude-sonnet-4-6';
const SECRET_QUESTION = 'What did Dana say about the merger with Initech?';
const request: AnswerRequest = {
  question: SECRET_QUESTION,
  passages: [
    {
      note_id: 'n_1',
      note_title: 'Board call',
      start_ms: 0,
      end_ms: 4000,
      text: 'The merger with Initech closes in May.',
      turns: [{ speaker: 'Speaker 1', text: 'The merger with Initech closes in May.' }],
    },
  ],
};
const engine = (client: ConverseClient, timeoutMs?: number) =>
  new BedrockAnswerEngine(client, {
    modelId: PROFILE,
    baseDelayMs: 1,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
const bodyOf = (response: ReturnType<typeof toErrorResponse>) =>
  JSON.parse(String(response.body)) as { detail: string };

afterEach(() => vi.restoreAllMocks());

describe('a Bedrock model that cannot be used is an operator-facing error, not "retry later"', () => {
  const cases: Array<[string, () => Error, RegExp]> = [
    [
      'denied (AccessDeniedException)',
      accessDenied,
      /denied access to us\.anthropic\.claude-sonnet-4-6\. Enable access/,
    ],
    [
      'a Legacy model the account may not use (ResourceNotFoundException)',
      legacyModelNotFound,
      /no model us\.anthropic\.claude-sonnet-4-6 this account can use/,
    ],
    ['at end of life (ValidationException)', endOfLife, /has reached end of life.*Choose a current model/],
    [
      'named by model ID where a profile is required (ValidationException)',
      () => onDemandUnsupported(PROFILE),
      /only be invoked through an inference profile/,
    ],
    [
      'unknown (ValidationException)',
      invalidModel,
      /does not accept us\.anthropic\.claude-sonnet-4-6 as a model/,
    ],
  ];

  for (const [what, failure, reason] of cases) {
    it(`a model ${what} answers 503 with what to fix, after one call`, async () => {
      const client = new FakeConverseClient([failure()]);
      const error = await engine(client)
        .answer(request)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderMisconfiguredError);
      expect(client.inputs).toHaveLength(1);
      const response = toErrorResponse(error);
      expect(response.statusCode).toBe(503);
      expect(bodyOf(response).detail).toMatch(/^The text engine is not configured correctly: /);
      expect(bodyOf(response).detail).toMatch(reason);
    });
  }

  it("logs AWS's message and the model, never the question or the passages", async () => {
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    await engine(new FakeConverseClient([accessDenied()]))
      .answer(request)
      .catch(() => undefined);
    const entry = logged.mock.calls.find(([message]) => message === 'Bedrock model cannot be used');
    expect(entry?.[1]).toEqual({
      modelId: PROFILE,
      exception: 'AccessDeniedException',
      awsMessage: "You don't have access to the model with the specified model ID.",
    });
    expect(JSON.stringify(logged.mock.calls)).not.toMatch(/Initech|Dana/);
  });

  it('fails an Insights job with the same detail (the worker records GenerationFailedError messages)', async () => {
    const insights = new BedrockInsightsEngine(new FakeConverseClient([endOfLife()]), { modelId: PROFILE });
    const transcription = JSON.parse(
      readFileSync(new URL('../fixtures/llm/transcript.json', import.meta.url), 'utf8'),
    ) as Transcription;
    const error = await insights
      .generateInsights({ transcription, title: 'Board call', reference_time: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GenerationFailedError);
    expect((error as Error).message).toMatch(
      /^The text engine is not configured correctly: model .* end of life/,
    );
  });

  it('an input the model refuses (too long) stays a plain generation failure, 502', async () => {
    const error = await engine(new FakeConverseClient([invalidRequest()]))
      .answer(request)
      .catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(ProviderMisconfiguredError);
    expect(toErrorResponse(error).statusCode).toBe(502);
  });
});

describe('Converse gives up at its time limit', () => {
  it('a model that does not answer is aborted at the limit and answers 504 with the limit in the detail', async () => {
    const client = new SilentConverseClient();
    const error = await engine(client, 50)
      .answer(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderTimedOutError);
    expect(client.signals).toHaveLength(1);
    expect(client.signals[0]?.aborted).toBe(true);
    const response = toErrorResponse(error);
    expect(response.statusCode).toBe(504);
    expect(bodyOf(response).detail).toBe(
      'The AI provider gave no answer within 1 s; retry later, or ask about fewer notes.',
    );
  });

  it('the limit covers the retries: a throttled model is not retried past it', async () => {
    const client = new FakeConverseClient([throttled(), throttled(), throttled(), throttled()]);
    const slowBackoff = new BedrockAnswerEngine(client, {
      modelId: PROFILE,
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      timeoutMs: 50,
    });
    await expect(slowBackoff.answer(request)).rejects.toBeInstanceOf(ProviderTimedOutError);
    expect(client.inputs).toHaveLength(1);
  });
});

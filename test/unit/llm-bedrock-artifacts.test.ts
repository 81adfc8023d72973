import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BedrockArtifactEngine } from '../../src/adapters/llm/bedrock-artifacts.ts';
import type { ConverseClient } from '../../src/adapters/llm/bedrock-converse.ts';
import { BedrockRuntimeLoadedOnFirstUse } from '../../src/adapters/llm/bedrock-runtime-client.ts';
import type {
  ArtifactKind,
  DeepResearchContent,
  EpiphanyContent,
  PodcastScript,
} from '../../src/domain/artifacts.ts';
import type { Transcription } from '../../src/domain/transcript.ts';
import type { ArtifactRequest } from '../../src/ports/artifact-engine.ts';
import { GenerationFailedError, ProviderThrottledError } from '../../src/ports/generation-errors.ts';
import {
  FakeConverseClient,
  invalidRequest,
  throttled,
  toolUseResponse,
  unavailable,
} from '../fixtures/llm/converse.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/llm/${name}`, import.meta.url), 'utf8')) as T;
const transcription = fixture<Transcription>('transcript.json');
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const request = <K extends ArtifactKind>(kind: K, language = 'en'): ArtifactRequest<K> => ({
  kind,
  transcription,
  title: 'Mobile launch sync',
  language,
  reference_time: Date.parse('2025-03-12T09:00:00Z'),
});
const drafts = {
  epiphany: () => fixture<EpiphanyContent>('epiphany.json'),
  deep_research: () => fixture<DeepResearchContent>('deep-research.json'),
  podcast: () => fixture<PodcastScript>('podcast.json'),
};
const TOOLS = {
  epiphany: 'record_epiphany',
  deep_research: 'record_deep_research',
  podcast: 'record_podcast_script',
};
const good = (kind: ArtifactKind) => toolUseResponse(TOOLS[kind], drafts[kind]());
const engine = (client: ConverseClient, maxTranscriptTokens?: number) =>
  new BedrockArtifactEngine(client, { modelId: MODEL, baseDelayMs: 1, maxTranscriptTokens });

describe('BedrockArtifactEngine', () => {
  it('is named after the model and accepts the SDK client imported on first use', () => {
    const client: ConverseClient = new BedrockRuntimeLoadedOnFirstUse({ region: 'us-east-1' });
    expect(new BedrockArtifactEngine(client, { modelId: MODEL }).name).toBe(`bedrock:${MODEL}`);
  });

  it.each(['epiphany', 'deep_research', 'podcast'] as const)(
    'writes a %s artifact with one forced tool call whose schema is the kind’s',
    async (kind) => {
      const client = new FakeConverseClient([good(kind)]);
      const artifact = await engine(client).generateArtifact(request(kind));
      expect(artifact).toEqual(drafts[kind]());
      expect(client.inputs).toHaveLength(1);
      const input = client.inputs[0];
      expect(input?.inferenceConfig).toEqual({ maxTokens: 4096, temperature: 0 });
      expect(input?.toolConfig?.toolChoice).toEqual({ tool: { name: TOOLS[kind] } });
      const spec = input?.toolConfig?.tools?.[0]?.toolSpec;
      expect(spec?.name).toBe(TOOLS[kind]);
      const schema = spec?.inputSchema?.json as { required: string[] };
      expect(schema.required).toEqual(Object.keys(drafts[kind]()));
      const user = input?.messages?.[0]?.content?.[0]?.text ?? '';
      expect(user).toContain('Title: "Mobile launch sync"');
      expect(user).toContain('[52000] Bob: Do we know whether the analytics vendor stores data in Europe?');
    },
  );

  it('asks for the requested language and keeps quotes in the transcript language', async () => {
    const client = new FakeConverseClient([good('epiphany')]);
    await engine(client).generateArtifact(request('epiphany', 'de'));
    const system = client.inputs[0]?.system?.[0]?.text ?? '';
    expect(system).toContain('language with code de');
    expect(system).toMatch(/never translate a quote/);
  });

  it('drops evidence whose quote is not in the cited segment, and the idea left without any', async () => {
    const draft = drafts.epiphany();
    draft.ideas[0]?.evidence.push({ start_ms: 6900, quote: 'iOS crashes as well' });
    draft.ideas.push({
      title: 'Invented',
      connection: 'Something nobody said.',
      implication: 'Nothing.',
      evidence: [{ start_ms: 15000, quote: 'We should hire more testers.' }],
    });
    const client = new FakeConverseClient([toolUseResponse(TOOLS.epiphany, draft)]);
    const artifact = await engine(client).generateArtifact(request('epiphany'));
    expect(artifact).toEqual(drafts.epiphany());
    expect(client.inputs).toHaveLength(1);
  });

  it('re-asks once with a toolResult error after a malformed tool input, then takes the corrected one', async () => {
    const malformed = toolUseResponse(TOOLS.deep_research, {
      summary: 'A sync.',
      research_questions: 'none',
      claims: [{ claim: 'The crash is fixed.' }],
    });
    const client = new FakeConverseClient([malformed, good('deep_research')]);
    const artifact = await engine(client).generateArtifact(request('deep_research'));
    expect(artifact.claims).toHaveLength(2);
    const messages = client.inputs[1]?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const result = messages[2]?.content?.[0]?.toolResult;
    expect(result?.status).toBe('error');
    expect(result?.toolUseId).toBe(malformed.output?.message?.content?.[0]?.toolUse?.toolUseId);
    expect(result?.content?.[0]?.text).toMatch(
      /does not match the deep research schema \(research_questions: .*Call record_deep_research again/,
    );
  });

  it('re-asks after an answer cut off at maxTokens (stopReason max_tokens)', async () => {
    const cut = toolUseResponse(TOOLS.podcast, { lines: drafts.podcast().lines.slice(0, 3) }, 'max_tokens');
    const client = new FakeConverseClient([cut, good('podcast')]);
    const script = await engine(client).generateArtifact(request('podcast'));
    expect(script.lines).toHaveLength(9);
    const retry = client.inputs[1]?.messages?.[2]?.content?.[0]?.toolResult?.content?.[0]?.text;
    expect(retry).toMatch(/cut off at maxTokens \(4096\)/);
  });

  it('fails with GenerationFailedError, without quoting the output, when no idea is grounded twice', async () => {
    const ungrounded = () => {
      const draft = drafts.epiphany();
      for (const idea of draft.ideas) idea.evidence = [{ start_ms: 28100, quote: 'We launch in secret.' }];
      return toolUseResponse(TOOLS.epiphany, draft);
    };
    const client = new FakeConverseClient([ungrounded(), ungrounded()]);
    const message = await engine(client)
      .generateArtifact(request('epiphany'))
      .catch((error: Error) => {
        expect(error).toBeInstanceOf(GenerationFailedError);
        return error.message;
      });
    expect(message).toMatch(/no valid epiphany artifact in two answers: No idea has evidence/);
    expect(message).not.toMatch(/secret|April/);
    expect(client.inputs).toHaveLength(2);
  });

  it('removes podcast citations of segments beyond the transcript shown', async () => {
    // 70 tokens ≈ 280 characters: only the first three lines (0, 6900, 15000) are shown.
    const client = new FakeConverseClient([good('podcast')]);
    const script = await engine(client, 70).generateArtifact(request('podcast'));
    const user = client.inputs[0]?.messages?.[0]?.content?.[0]?.text ?? '';
    expect(user.split('\n').filter((line) => /^\[\d+\] /.test(line))).toHaveLength(3);
    const cited = new Set(script.lines.flatMap((line) => line.citations));
    expect([...cited].sort((a, b) => a - b)).toEqual([0, 6900, 15000]);
    expect(script.lines).toHaveLength(9);
  });

  it('maps persistent throttling to ProviderThrottledError after maxRetries + 1 calls', async () => {
    const client = new FakeConverseClient([throttled(), throttled(), throttled(), throttled()]);
    const failure = engine(client).generateArtifact(request('podcast'));
    await expect(failure).rejects.toBeInstanceOf(ProviderThrottledError);
    await expect(failure).rejects.toThrow(/ThrottlingException, 4 attempts/);
    expect(client.inputs).toHaveLength(4);
  });

  it('retries a ServiceUnavailableException (503) and succeeds', async () => {
    const client = new FakeConverseClient([unavailable(), good('deep_research')]);
    const artifact = await engine(client).generateArtifact(request('deep_research'));
    expect(artifact.summary).toMatch(/April 7/);
    expect(client.inputs).toHaveLength(2);
  });

  it('does not retry a ValidationException, and reports it as GenerationFailedError', async () => {
    const client = new FakeConverseClient([invalidRequest()]);
    const failure = engine(client).generateArtifact(request('epiphany'));
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/failed \(ValidationException\)$/);
    expect(client.inputs).toHaveLength(1);
  });
});

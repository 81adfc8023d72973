import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildInsightsPrompt, transcriptLine } from '../../src/adapters/llm/prompt.ts';
import { insightsJsonSchema } from '../../src/adapters/llm/schema.ts';
import { validateInsights } from '../../src/adapters/llm/validate.ts';
import type { Transcription } from '../../src/domain/transcript.ts';
import { GenerationFailedError } from '../../src/ports/generation-errors.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/llm/${name}`, import.meta.url), 'utf8');
const transcription = JSON.parse(fixture('transcript.json')) as Transcription;
const insights = () => JSON.parse(fixture('insights.json')) as Record<string, unknown>;
const request = { transcription, title: 'Sync', reference_time: Date.parse('2025-03-12T09:00:00Z') };

describe('Insights prompt', () => {
  it('renders every segment as [start_ms] Speaker: text', () => {
    const prompt = buildInsightsPrompt(request);
    for (const segment of transcription.conversation_segments)
      expect(prompt.user).toContain(transcriptLine(segment));
    expect(prompt.truncated).toBe(false);
    expect(prompt.citable.size).toBe(10);
  });

  it('truncates a long transcript to whole lines within the budget and says so', () => {
    // 60 tokens ≈ 240 characters: the first three lines (about 80 characters each) fit.
    const prompt = buildInsightsPrompt(request, { maxTranscriptTokens: 60 });
    const lines = prompt.user.split('\n').filter((line) => /^\[\d+\] /.test(line));
    expect(lines.join('\n').length).toBeLessThanOrEqual(240);
    expect(lines).toEqual(transcription.conversation_segments.slice(0, lines.length).map(transcriptLine));
    expect(prompt.truncated).toBe(true);
    expect(prompt.user).toContain(`only its first ${lines.length} of 10 lines are shown`);
    expect([...prompt.citable]).toEqual(
      transcription.conversation_segments.slice(0, lines.length).map((s) => s.start_ms),
    );
  });
});

describe('Insights JSON schema', () => {
  it('is a plain object schema without $schema or references', () => {
    expect(insightsJsonSchema.type).toBe('object');
    expect(insightsJsonSchema).not.toHaveProperty('$schema');
    expect(JSON.stringify(insightsJsonSchema)).not.toMatch(/\$ref|\$defs|\(\?:/);
  });
});

describe('validateInsights', () => {
  it('accepts a JSON string, also inside a Markdown fence', () => {
    const text = `\`\`\`json\n${fixture('insights.json')}\n\`\`\``;
    expect(validateInsights(text, transcription).decisions).toHaveLength(1);
  });

  it('reads "" as an unstated owner or due date', () => {
    const value = insights();
    value.action_items = [{ text: 'Update the policy.', owner: '', due_date: '', citations: [37500] }];
    expect(validateInsights(value, transcription).action_items[0]).toMatchObject({
      owner: null,
      due_date: null,
    });
  });

  it('rejects invalid JSON and impossible dates with a short reason', () => {
    expect(() => validateInsights('{"summary": ', transcription)).toThrow(GenerationFailedError);
    const value = insights();
    value.action_items = [{ text: 'Fix it.', owner: 'Bob', due_date: '2025-02-30', citations: [22400] }];
    expect(() => validateInsights(value, transcription)).toThrow(/action_items\.0\.due_date/);
  });

  it('fails when the summary cites nothing from the transcript', () => {
    const value = insights();
    value.summary = { text: 'A meeting.', citations: [1, 2] };
    expect(() => validateInsights(value, transcription)).toThrow(/no transcript segment for the summary/);
  });
});

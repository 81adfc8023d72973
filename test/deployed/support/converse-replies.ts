import type { ConverseReply } from '../../support/bedrock-stand-in.ts';

/** What the replies cite: a completed transcript as getTranscription returns it. */
export interface TranscriptView {
  conversation_segments: Array<{ start_ms: number; end_ms: number; text: string }>;
  duration_ms: number;
}

/** A Converse answer in AWS's shape (the body Bedrock Runtime sends): one forced tool call. */
export function converseToolCall(name: string, input: unknown): ConverseReply {
  return {
    output: {
      output: {
        message: { role: 'assistant', content: [{ toolUse: { toolUseId: `tooluse_${name}`, name, input } }] },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 900, outputTokens: 200, totalTokens: 1100 },
      metrics: { latencyMs: 1200 },
    },
  };
}

function segmentsOf(source: TranscriptView) {
  const [first, ...rest] = source.conversation_segments;
  if (!first) throw new Error('the transcript has no segments to cite');
  return { first, second: rest[0] ?? first };
}

/** Insights citing the transcript's lines, as the forced `record_insights` call. */
export function insightsToolUse(source: TranscriptView): ConverseReply {
  const { first, second } = segmentsOf(source);
  const cite = [first.start_ms];
  return converseToolCall('record_insights', {
    summary: {
      text: 'Maria and a colleague confirm Friday and the draft with budget numbers.',
      citations: cite,
    },
    key_points: [{ text: 'The draft and the budget numbers come on Friday.', citations: [second.start_ms] }],
    topics: [{ label: 'Friday meeting', citations: cite }],
    action_items: [
      { text: 'Bring the draft and the budget numbers.', owner: null, due_date: null, citations: cite },
    ],
    decisions: [],
    open_questions: [],
    chapters: [{ title: 'Planning', start_ms: first.start_ms, end_ms: source.duration_ms }],
    speakers: [],
  });
}

/** An Epiphany whose evidence quotes the transcript's first line verbatim, as `record_epiphany`. */
export function epiphanyToolUse(source: TranscriptView): ConverseReply {
  const { first } = segmentsOf(source);
  return converseToolCall('record_epiphany', {
    ideas: [
      {
        title: 'An agreed day carries the draft',
        connection: 'The meeting day is confirmed in the same breath as the draft and the numbers.',
        implication: 'If Friday moves, the draft review moves with it.',
        evidence: [{ start_ms: first.start_ms, quote: first.text }],
      },
    ],
  });
}

/** What the podcast's hosts say, in order. */
export const podcastLines = [
  'Welcome back. Today: a short planning call about Friday.',
  'Maria confirms the day, and the draft comes with it.',
  'And the budget numbers travel with the draft.',
] as const;

/** A two-host script retelling the transcript, as `record_podcast_script`. */
export function podcastToolUse(source: TranscriptView): ConverseReply {
  const { first, second } = segmentsOf(source);
  return converseToolCall('record_podcast_script', {
    lines: [
      { host: 'host_1', text: 'Welcome back. Today: a short planning call about Friday.', citations: [] },
      {
        host: 'host_2',
        text: 'Maria confirms the day, and the draft comes with it.',
        citations: [first.start_ms],
      },
      { host: 'host_1', text: 'And the budget numbers travel with the draft.', citations: [second.start_ms] },
    ],
  });
}

import { describe, expect, it } from 'vitest';
import { ExtractiveInsightsEngine } from '../../src/adapters/extractive/index.ts';
import { type InsightsContent, insightsContent } from '../../src/domain/insights.ts';
import type { ConversationSegment } from '../../src/domain/transcript.ts';
import {
  meeting,
  meetingReferenceTime,
  transcriptionOf,
  unpunctuated,
} from '../fixtures/insights/meeting.ts';
import { syntheticTranscription } from '../fixtures/insights/synthetic.ts';

const engine = new ExtractiveInsightsEngine();

function insightsOf(segments: ConversationSegment[], durationMs?: number): Promise<InsightsContent> {
  return engine.generateInsights({
    transcription: transcriptionOf(segments, durationMs),
    title: 'Planning',
    reference_time: meetingReferenceTime,
  });
}

function allCitations(insights: InsightsContent): number[] {
  return [
    ...insights.summary.citations,
    ...[
      insights.key_points,
      insights.topics,
      insights.action_items,
      insights.decisions,
      insights.open_questions,
    ]
      .flat()
      .flatMap((item) => item.citations),
  ];
}

describe('ExtractiveInsightsEngine on a punctuated two-speaker meeting', () => {
  const pending = insightsOf(meeting.conversation_segments);
  const starts = new Set(meeting.conversation_segments.map((segment) => segment.start_ms));

  it('is named local-extractive and returns content that validates against the Insights schema', async () => {
    expect(engine.name).toBe('local-extractive');
    expect(insightsContent.safeParse(await pending).success).toBe(true);
  });

  it('summarises with two or three quoted sentences taken verbatim from the cited segments', async () => {
    const { summary } = await pending;
    const quotes = [...summary.text.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(quotes.length).toBeGreaterThanOrEqual(2);
    expect(quotes.length).toBeLessThanOrEqual(3);
    expect(summary.text).toBe(quotes.map((quote) => `"${quote}"`).join(' '));
    const cited = meeting.conversation_segments.filter((segment) =>
      summary.citations.includes(segment.start_ms),
    );
    for (const quote of quotes) expect(cited.some((segment) => segment.text.includes(quote))).toBe(true);
  });

  it('lists key points that do not repeat the summary', async () => {
    const insights = await pending;
    expect(insights.key_points.length).toBeGreaterThanOrEqual(3);
    expect(insights.key_points.length).toBeLessThanOrEqual(7);
    for (const point of insights.key_points) expect(insights.summary.text).not.toContain(point.text);
  });

  it('finds the decision to go with Postgres', async () => {
    const { decisions } = await pending;
    expect(decisions.map((decision) => decision.text)).toEqual([
      'Then we decided to go with Postgres for the database migration.',
    ]);
    expect(decisions[0]?.citations).toEqual([58_800]);
  });

  it('finds both action items with their owners and resolves "next Friday" and "tomorrow" against the reference time', async () => {
    const { action_items } = await pending;
    expect(action_items).toContainEqual({
      text: "I'll write the migration plan by next Friday.",
      owner: 'Speaker 2',
      due_date: '2025-03-14',
      citations: [66_000],
    });
    expect(action_items).toContainEqual({
      text: 'Priya will send the updated budget spreadsheet to finance tomorrow.',
      owner: 'Priya',
      due_date: '2025-03-06',
      citations: [112_800],
    });
  });

  it('lists the licensing question nobody could answer as open, but not the answered ones', async () => {
    const texts = (await pending).open_questions.map((question) => question.text);
    expect(texts).toContain('What about the licensing costs for the new reporting tool?');
    expect(texts).not.toContain('How long would the schema conversion take?');
    expect(texts).not.toContain('How much is the renewal?');
  });

  it('finds the migration and the budget among three to eight topics, each citing segments that mention it', async () => {
    const { topics } = await pending;
    expect(topics.length).toBeGreaterThanOrEqual(3);
    expect(topics.length).toBeLessThanOrEqual(8);
    expect(topics.some((topic) => /migration/i.test(topic.label))).toBe(true);
    expect(topics.some((topic) => /budget/i.test(topic.label))).toBe(true);
    for (const topic of topics) {
      const head = topic.label.toLowerCase().split(' ').at(-1) ?? '';
      for (const start of topic.citations) {
        const segment = meeting.conversation_segments.find((candidate) => candidate.start_ms === start);
        expect(segment?.text.toLowerCase()).toContain(head.replace(/s$/, ''));
      }
    }
  });

  it('cites only start_ms values of segments that exist', async () => {
    const citations = allCitations(await pending);
    expect(citations.length).toBeGreaterThan(0);
    for (const citation of citations) expect(starts.has(citation)).toBe(true);
  });

  it('gives each speaker a talk-time share of summed segment durations, the shares adding up to 1', async () => {
    const { speakers } = await pending;
    expect(speakers.map((speaker) => speaker.speaker).sort()).toEqual(['Speaker 1', 'Speaker 2']);
    for (const speaker of speakers) {
      const expected = meeting.conversation_segments
        .filter((segment) => segment.speaker === speaker.speaker)
        .reduce((sum, segment) => sum + segment.end_ms - segment.start_ms, 0);
      expect(speaker.talk_time_ms).toBe(expected);
    }
    expect(speakers.reduce((sum, speaker) => sum + speaker.share, 0)).toBeCloseTo(1, 10);
  });

  it('splits the recording into ordered chapters covering it from 0 to its end without gaps, the budget talk apart from the migration', async () => {
    const { chapters } = await pending;
    expect(chapters.length).toBeGreaterThanOrEqual(1);
    expect(chapters[0]?.start_ms).toBe(0);
    expect(chapters.at(-1)?.end_ms).toBe(meeting.duration_ms);
    chapters.forEach((chapter, i) => {
      expect(chapter.end_ms).toBeGreaterThan(chapter.start_ms);
      if (i > 0) expect(chapter.start_ms).toBe(chapters[i - 1]?.end_ms);
    });
    expect(chapters.map((chapter) => chapter.title)).toEqual(['migration', 'budget']);
  });
});

describe('ExtractiveInsightsEngine on the same meeting as the local recogniser writes it (lower case, unpunctuated)', () => {
  const pending = insightsOf(unpunctuated(meeting.conversation_segments));

  it('still validates and finds the decision', async () => {
    const insights = await pending;
    expect(insightsContent.safeParse(insights).success).toBe(true);
    expect(insights.decisions.map((decision) => decision.citations[0])).toEqual([58_800]);
  });

  it('still finds both action items with owners and due dates', async () => {
    const items = (await pending).action_items.map(({ owner, due_date, citations }) => ({
      owner,
      due_date,
      citations,
    }));
    expect(items).toContainEqual({ owner: 'Speaker 2', due_date: '2025-03-14', citations: [66_000] });
    expect(items).toContainEqual({ owner: 'Priya', due_date: '2025-03-06', citations: [112_800] });
  });

  it('recognises the open question without a question mark', async () => {
    const starts = (await pending).open_questions.map((question) => question.citations[0]);
    expect(starts).toContain(117_800);
  });
});

describe('ExtractiveInsightsEngine patterns', () => {
  const at = (start_ms: number, speaker: string, text: string): ConversationSegment => ({
    start_ms,
    end_ms: start_ms + 4_000,
    speaker,
    text,
    has_overlap: false,
  });

  it('makes the addressee of a request its owner and does not list the request as an open question', async () => {
    const insights = await insightsOf(
      [
        at(0, 'Speaker 1', 'Tom, can you send the slides to the client by Monday?'),
        at(5_000, 'Speaker 2', 'Sure, no problem.'),
      ],
      10_000,
    );
    expect(insights.action_items).toEqual([
      {
        text: 'Tom, can you send the slides to the client by Monday?',
        owner: 'Tom',
        due_date: '2025-03-10',
        citations: [0],
      },
    ]);
    expect(insights.open_questions).toEqual([]);
  });

  it('reads "let\'s go with" as a decision rather than a task, and "we haven\'t decided" as neither', async () => {
    const insights = await insightsOf(
      [
        at(0, 'Speaker 1', "We haven't decided on the hosting provider yet."),
        at(5_000, 'Speaker 2', "Let's go with the smaller hosting plan for now."),
      ],
      10_000,
    );
    expect(insights.decisions.map((decision) => decision.citations)).toEqual([[5_000]]);
    expect(insights.action_items).toEqual([]);
  });
});

describe('ExtractiveInsightsEngine without speech', () => {
  it('returns empty lists and a summary saying so, citing 0 when there are no segments', async () => {
    const insights = await insightsOf([], 30_000);
    expect(insightsContent.safeParse(insights).success).toBe(true);
    expect(insights.summary).toEqual({ text: 'No speech was recognised in this recording.', citations: [0] });
    for (const list of [
      insights.key_points,
      insights.topics,
      insights.action_items,
      insights.decisions,
      insights.open_questions,
      insights.chapters,
      insights.speakers,
    ]) {
      expect(list).toEqual([]);
    }
  });

  it('cites the first segment when segments exist but carry no words', async () => {
    const insights = await insightsOf(
      [{ start_ms: 1_500, end_ms: 2_000, speaker: 'Speaker 1', text: '  ', has_overlap: false }],
      5_000,
    );
    expect(insightsContent.safeParse(insights).success).toBe(true);
    expect(insights.summary.citations).toEqual([1_500]);
    expect(insights.speakers).toEqual([]);
  });
});

describe('ExtractiveInsightsEngine on long recordings', () => {
  it('handles a synthetic two-hour meeting in a few seconds with valid, grounded output', async () => {
    const long = syntheticTranscription(120);
    const started = performance.now();
    const insights = await engine.generateInsights({
      transcription: long,
      title: 'Long',
      reference_time: meetingReferenceTime,
    });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(10_000);
    expect(insightsContent.safeParse(insights).success).toBe(true);
    const starts = new Set(long.conversation_segments.map((segment) => segment.start_ms));
    for (const citation of allCitations(insights)) expect(starts.has(citation)).toBe(true);
    expect(insights.chapters.length).toBeGreaterThan(1);
    expect(insights.chapters.at(-1)?.end_ms).toBe(long.duration_ms);
  });
});

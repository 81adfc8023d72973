import { describe, expect, it } from 'vitest';
import { ExtractiveArtifactEngine, ExtractiveInsightsEngine } from '../../src/adapters/extractive/index.ts';
import type { ArtifactDrafts, ArtifactKind } from '../../src/domain/artifacts.ts';
import type { InsightsContent } from '../../src/domain/insights.ts';
import type { ConversationSegment, Transcription } from '../../src/domain/transcript.ts';
import {
  meeting,
  meetingReferenceTime,
  transcriptionOf,
  unpunctuated,
} from '../fixtures/insights/meeting.ts';

/**
 * Issue 39: a recording that loops (the same passage over and over, as `-stream_loop` makes one)
 * listed its action items about 20 times, and its research brief each claim several times.
 */
const LOOPS = 20;

/** The meeting said `times` times in a row, each pass starting where the last one ended. */
function looped(segments: readonly ConversationSegment[], times: number): Transcription {
  const passes = Array.from({ length: times }, (_, pass) =>
    segments.map((segment) => ({
      ...segment,
      start_ms: segment.start_ms + pass * meeting.duration_ms,
      end_ms: segment.end_ms + pass * meeting.duration_ms,
    })),
  );
  return transcriptionOf(passes.flat(), meeting.duration_ms * times);
}

/** Case, punctuation and spacing aside, so that "Okay." and "okay" count as one. */
const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();

function expectEachOnce(texts: readonly string[]): void {
  const repeated = texts.filter((text, i) => texts.findIndex((other) => words(other) === words(text)) !== i);
  expect(repeated).toEqual([]);
}

const insightsEngine = new ExtractiveInsightsEngine();
const artifactEngine = new ExtractiveArtifactEngine();
const insightsOf = (transcription: Transcription): Promise<InsightsContent> =>
  insightsEngine.generateInsights({
    transcription,
    title: 'Planning meeting',
    reference_time: meetingReferenceTime,
  });
const artifactOf = <K extends ArtifactKind>(
  kind: K,
  transcription: Transcription,
): Promise<ArtifactDrafts[K]> =>
  artifactEngine.generateArtifact({
    kind,
    transcription,
    title: 'Planning meeting',
    language: 'en',
    reference_time: meetingReferenceTime,
  });

describe.each([
  ['punctuated', meeting.conversation_segments],
  [
    'as the local recogniser writes it (lower case, unpunctuated)',
    unpunctuated(meeting.conversation_segments),
  ],
])('a meeting recording looped %s', (_, segments) => {
  const once = transcriptionOf(segments);
  const loop = looped(segments, LOOPS);

  it(`gives each action item once, not ${LOOPS} times, cited where it was first said`, async () => {
    const [single, repeated] = await Promise.all([insightsOf(once), insightsOf(loop)]);
    expect(single.action_items.length).toBeGreaterThanOrEqual(3);
    expect(repeated.action_items).toEqual(single.action_items);
  });

  it('lists each key point, topic, decision, open question and chapter once', async () => {
    const insights = await insightsOf(loop);
    expectEachOnce(insights.key_points.map((item) => item.text));
    expectEachOnce(insights.topics.map((topic) => topic.label));
    expectEachOnce(insights.decisions.map((item) => item.text));
    expectEachOnce(insights.open_questions.map((item) => item.text));
    expectEachOnce(insights.chapters.map((chapter) => chapter.title));
    expect(insights.decisions).toHaveLength(1);
    expect(insights.open_questions).toHaveLength(1);
    // The chapters still cover the whole recording, in order and without gaps.
    expect(insights.chapters[0]?.start_ms).toBe(0);
    expect(insights.chapters.at(-1)?.end_ms).toBe(meeting.duration_ms * LOOPS);
    insights.chapters.slice(1).forEach((chapter, k) => {
      expect(chapter.start_ms).toBe(insights.chapters[k]?.end_ms);
    });
  });

  it('writes a research brief that states each claim once, cited where it was first said', async () => {
    const [single, repeated] = await Promise.all([
      artifactOf('deep_research', once),
      artifactOf('deep_research', loop),
    ]);
    expectEachOnce(repeated.claims.map((item) => item.claim));
    expect(repeated.claims.map((item) => item.claim).sort()).toEqual(
      single.claims.map((item) => item.claim).sort(),
    );
    for (const claim of repeated.claims) {
      expect(claim.evidence[0]?.start_ms).toBeLessThan(meeting.duration_ms);
    }
    expectEachOnce(repeated.research_questions.map((item) => item.question));
    expectEachOnce(repeated.gaps.flatMap((gap) => gap.evidence.slice(0, 1).map((item) => item.quote)));
    expectEachOnce(repeated.next_steps.map((item) => item.step));
  });

  it('retells each decision, action item and open question once in the podcast', async () => {
    const { lines } = await artifactOf('podcast', loop);
    const quoted = lines.flatMap((line) =>
      [...line.text.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? ''),
    );
    expectEachOnce(quoted.filter((quote) => quote !== 'Planning meeting'));
  });

  it('links each pair of ideas once in the epiphany', async () => {
    const { ideas } = await artifactOf('epiphany', loop);
    expectEachOnce(ideas.map((idea) => idea.title));
  });
});

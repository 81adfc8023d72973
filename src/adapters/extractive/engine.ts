import { distinctBy } from '../../domain/distinct-items.ts';
import type { InsightsContent } from '../../domain/insights.ts';
import type { InsightsEngine, InsightsRequest } from '../../ports/insights-engine.ts';
import { findActionItems } from './action-items.ts';
import { chapters } from './chapters.ts';
import { decisionsIn, isDecision } from './decisions.ts';
import { collectPhrases, rankPhrases } from './keyphrases.ts';
import { loadNlp } from './nlp.ts';
import { isQuestion, openQuestions } from './questions.ts';
import { isPunctuated, type SentenceUnit, toSentenceUnits, wordCount } from './sentences.ts';
import { speakerShares } from './speakers.ts';
import { pick, rankSentences } from './summary.ts';

const REQUEST = /\b(can you|could you|would you|will you|please)\b/;
/** Topic citations: enough to find every discussion of it in a long recording, not a wall of numbers. */
const MAX_TOPIC_CITATIONS = 50;
const NO_SPEECH = 'No speech was recognised in this recording.';

/**
 * Insights without a language model: every text is a sentence quoted from the transcript, chosen by
 * ranking (TextRank), keyword statistics (TF-IDF) and patterns (commitments, decisions, questions),
 * with chrono-node for due dates. The engine name tells readers it is extractive; nothing is
 * paraphrased or invented. Citations are always `start_ms` of the segment a sentence came from.
 */
export class ExtractiveInsightsEngine implements InsightsEngine {
  readonly name = 'local-extractive';
  /** It picks sentences from the transcript: instructions cannot change what it picks (results say so). */
  readonly followsInstructions = false;

  async generateInsights(request: InsightsRequest): Promise<InsightsContent> {
    await loadNlp();
    return extractInsights(request);
  }
}

/** The engine's work, once `loadNlp()` has loaded the model. */
export function extractInsights({ transcription, reference_time }: InsightsRequest): InsightsContent {
  const segments = transcription.conversation_segments;
  const units = toSentenceUnits(segments);
  const speakers = speakerShares(segments);
  if (units.length === 0) return noSpeech(segments[0]?.start_ms ?? 0, speakers);

  const punctuated = isPunctuated(segments);
  const question = (unit: SentenceUnit) => isQuestion(unit, punctuated);
  const decision = (unit: SentenceUnit) => wordCount(unit) >= 4 && isDecision(unit, question);

  const ranked = rankSentences(units, question);
  // Short transcripts where nothing is long enough to rank still get a summary: their longest sentences.
  const summaryUnits =
    ranked.order.length > 0
      ? pick(ranked, ranked.order.length >= 9 ? 3 : 2, new Set())
      : distinctBy(units, (unit) => unit.text)
          .sort((a, b) => wordCount(b) - wordCount(a) || a.index - b.index)
          .slice(0, 2)
          .sort((a, b) => a.index - b.index);
  const keyPointCount = Math.min(7, Math.max(3, Math.round(ranked.order.length / 6)));
  const keyPoints = pick(ranked, keyPointCount, new Set(summaryUnits.map((unit) => unit.index)));

  const topicCount = Math.min(8, Math.max(3, Math.round(segments.length / 10) + 2));
  const topics = rankPhrases(
    collectPhrases(units).values(),
    (stats) => stats.count * Math.log(1 + segments.length / Math.max(1, stats.segments.size)),
    topicCount,
  );

  const actionItems = findActionItems(units, {
    punctuated,
    referenceTime: reference_time,
    isDecision: decision,
    isQuestion: question,
  });

  return {
    summary: {
      // Quoted so that the summary reads as what was said, not as a generated paraphrase.
      text: summaryUnits.map((unit) => `"${unit.text}"`).join(' '),
      citations: citationsOf(summaryUnits),
    },
    key_points: keyPoints.map(cited),
    topics: topics.map((topic) => ({
      label: topic.label,
      citations: unique(topic.segments.map((index) => segments[index]?.start_ms ?? 0)).slice(
        0,
        MAX_TOPIC_CITATIONS,
      ),
    })),
    action_items: actionItems.map((item) => ({
      text: item.unit.text,
      owner: item.owner,
      due_date: item.due_date,
      citations: [item.unit.start_ms],
    })),
    decisions: decisionsIn(units, decision).map(cited),
    open_questions: openQuestions(units, question, (unit) => REQUEST.test(unit.lower)).map(cited),
    chapters: chapters(segments, units, transcription.duration_ms),
    speakers,
  };
}

function cited(unit: SentenceUnit): { text: string; citations: number[] } {
  return { text: unit.text, citations: [unit.start_ms] };
}

function citationsOf(units: readonly SentenceUnit[]): number[] {
  return unique(units.map((unit) => unit.start_ms));
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)];
}

/**
 * Nothing recognised. The schema needs at least one citation even here: the first segment's start if
 * segments exist (silence or blank text), else 0, the start of the recording.
 */
function noSpeech(citation: number, speakers: InsightsContent['speakers']): InsightsContent {
  return {
    summary: { text: NO_SPEECH, citations: [citation] },
    key_points: [],
    topics: [],
    action_items: [],
    decisions: [],
    open_questions: [],
    chapters: [],
    speakers,
  };
}

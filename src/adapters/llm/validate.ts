import { type InsightsContent, insightsContent } from '../../domain/insights.ts';
import type { Transcription } from '../../domain/transcript.ts';
import { GenerationFailedError } from '../../ports/generation-errors.ts';
import { isRecord, parseModelOutput, parseWith } from './model-output.ts';

/**
 * Checks a model's answer and makes it safe to store. The answer is never trusted: it must parse, match
 * `insightsContent`, and cite only segments the model was shown. Error messages name what is wrong,
 * never quote the output (it holds transcript text).
 */
export function validateInsights(
  output: unknown,
  transcription: Transcription,
  citable: ReadonlySet<number> = new Set(transcription.conversation_segments.map((s) => s.start_ms)),
): InsightsContent {
  const content = parseWith(insightsContent, blankToNull(parseModelOutput(output)), 'Insights');
  return grounded(content, transcription, citable);
}

/** One more harmless slip repaired instead of re-asked: "" for an unstated owner or due date. */
function blankToNull(value: unknown): unknown {
  if (!isRecord(value) || !Array.isArray(value.action_items)) return value;
  const action_items = value.action_items.map((item: unknown) => {
    if (!isRecord(item)) return item;
    const blank = (field: unknown) => (typeof field === 'string' && field.trim() === '' ? null : field);
    return { ...item, owner: blank(item.owner), due_date: blank(item.due_date) };
  });
  return { ...value, action_items };
}

function grounded(
  content: InsightsContent,
  transcription: Transcription,
  citable: ReadonlySet<number>,
): InsightsContent {
  const keep = (citations: number[]) =>
    [...new Set(citations.filter((ms) => citable.has(ms)))].sort((a, b) => a - b);
  // Items whose every citation was invented are dropped: an uncited item cannot be checked by the reader.
  const cited = <T extends { citations: number[] }>(items: T[]) =>
    items
      .map((item) => ({ ...item, citations: keep(item.citations) }))
      .filter((item) => item.citations.length > 0);

  const summaryCitations = keep(content.summary.citations);
  if (summaryCitations.length === 0) {
    throw new GenerationFailedError('The model output cites no transcript segment for the summary');
  }
  return {
    summary: { ...content.summary, citations: summaryCitations },
    key_points: cited(content.key_points),
    topics: cited(content.topics),
    action_items: cited(content.action_items),
    decisions: cited(content.decisions),
    open_questions: cited(content.open_questions),
    // A chapter must start at a line the model saw; its end is kept inside the recording.
    chapters: content.chapters
      .filter((chapter) => citable.has(chapter.start_ms) && chapter.end_ms >= chapter.start_ms)
      .map((chapter) => ({ ...chapter, end_ms: Math.min(chapter.end_ms, transcription.duration_ms) })),
    speakers: talkTime(transcription),
  };
}

/**
 * Talk time is arithmetic over the segments, which models get wrong; it is computed here instead of
 * taken from the answer (the prompt asks for an empty array).
 */
export function talkTime(transcription: Transcription): InsightsContent['speakers'] {
  const bySpeaker = new Map<string, number>();
  for (const segment of transcription.conversation_segments) {
    const duration = Math.max(0, segment.end_ms - segment.start_ms);
    bySpeaker.set(segment.speaker, (bySpeaker.get(segment.speaker) ?? 0) + duration);
  }
  const total = [...bySpeaker.values()].reduce((sum, ms) => sum + ms, 0);
  return [...bySpeaker.entries()]
    .map(([speaker, talk_time_ms]) => ({
      speaker,
      talk_time_ms,
      share: total > 0 ? Math.round((talk_time_ms / total) * 1000) / 1000 : 0,
    }))
    .sort((a, b) => b.talk_time_ms - a.talk_time_ms);
}

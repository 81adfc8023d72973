import { type InsightsContent, insightsContent } from '../../domain/insights.ts';
import type { Transcription } from '../../domain/transcript.ts';
import { GenerationFailedError } from '../../ports/insights-engine.ts';

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
  const value = typeof output === 'string' ? parseJson(output) : output;
  const parsed = insightsContent.safeParse(normalise(value));
  if (!parsed.success) {
    const where = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message.slice(0, 80)}`)
      .join('; ');
    throw new GenerationFailedError(`The model output does not match the Insights schema (${where})`);
  }
  return grounded(parsed.data, transcription, citable);
}

function parseJson(text: string): unknown {
  // JSON-mode servers without a schema sometimes wrap the object in a Markdown code fence.
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(unfenced);
  } catch {
    throw new GenerationFailedError(`The model output is not valid JSON (${text.length} characters)`);
  }
}

/**
 * Repairs two harmless slips instead of spending a re-ask on them: a top-level field sent as a JSON
 * string (some models do this with tool inputs), and "" for an unstated owner or due date.
 */
function normalise(input: unknown): unknown {
  if (!isRecord(input)) return input;
  const value: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(input)) value[key] = unstringify(field);
  if (!Array.isArray(value.action_items)) return value;
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

function unstringify(field: unknown): unknown {
  if (typeof field !== 'string' || !/^\s*[[{]/.test(field)) return field;
  try {
    return JSON.parse(field);
  } catch {
    return field;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

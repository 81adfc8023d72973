import type { Collection } from './collection.ts';
import type { Insights } from './insights.ts';
import type { Job } from './job.ts';
import { type InsightsView, insightsWithNames } from './named-results.ts';
import { type Shown, withFreshness } from './result-freshness.ts';
import type { SpeakerNames } from './speaker-labels.ts';

/**
 * Stored Insights as shown: their freshness worked out on the result as stored (its instructions
 * compared as they were given, "Speaker 1" and all), then the speakers' names put in everywhere but
 * in the instructions, which are the person's words about a collection, not a speaker's.
 */
export function shownInsights(
  insights: Insights,
  names: SpeakerNames | undefined,
  transcriptionJob: Job | null,
  filed: readonly Collection[],
): Shown<InsightsView> {
  const { collection_instructions, ...fresh } = withFreshness(insights, transcriptionJob, filed);
  return { ...insightsWithNames(fresh, names), collection_instructions };
}

import type { CollectionInstruction } from '../domain/collection-instructions.ts';
import type { InsightsContent } from '../domain/insights.ts';
import type { SpeakerNames } from '../domain/speaker-labels.ts';
import type { Transcription } from '../domain/transcript.ts';

export interface InsightsRequest {
  /** Speakers by their labels (`Speaker 1`), as stored. */
  transcription: Transcription;
  /**
   * The names the user has given the labels so far. Engines write labels, not names: the service
   * shows each label as the name it has when the result is read, so later renames follow.
   */
  speaker_names?: SpeakerNames;
  title: string;
  /** When the recording was made or uploaded (epoch ms): relative dates ("next Friday") resolve against it. */
  reference_time: number;
  /**
   * The instructions of the note's collections, by collection name (the order listCollections
   * gives): the user's preferences for content and emphasis. Absent or empty: none.
   */
  instructions?: CollectionInstruction[];
}

/**
 * Turns a transcript into Insights. Implementations: the local extractive engine (no LLM offline),
 * Amazon Bedrock (Converse), OpenAI-compatible chat completions. Every item must cite the
 * `start_ms` of segments that exist in the transcript.
 * Errors: `ProviderThrottledError` when the provider rate-limits (mapped to 429 / retried),
 * `GenerationFailedError` when no valid output could be produced (502 / job failed).
 */
export interface InsightsEngine {
  readonly name: string;
  /** False for an engine that cannot follow the collections' instructions (the local extractive one). */
  readonly followsInstructions: boolean;
  generateInsights(request: InsightsRequest): Promise<InsightsContent>;
}

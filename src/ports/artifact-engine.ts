import type { ArtifactDrafts, ArtifactKind } from '../domain/artifacts.ts';
import type { CollectionInstruction } from '../domain/collection-instructions.ts';
import type { SpeakerNames } from '../domain/speaker-labels.ts';
import type { Transcription } from '../domain/transcript.ts';

export interface ArtifactRequest<K extends ArtifactKind = ArtifactKind> {
  kind: K;
  /** Speakers by their labels (`Speaker 1`), as stored. */
  transcription: Transcription;
  /**
   * The names the user has given the labels so far. Engines write labels, not names: the service
   * shows each label as the name it has when the artifact is read (a podcast's audio is voiced with
   * the names of the moment it is made).
   */
  speaker_names?: SpeakerNames;
  title: string;
  /** The language to write in: a code such as `en` or `pt-BR` (`auto` is resolved before this). */
  language: string;
  /** When the recording was made or uploaded (epoch ms). */
  reference_time: number;
  /**
   * The instructions of the note's collections, by collection name (the order listCollections
   * gives): the user's preferences for content and emphasis. Absent or empty: none.
   */
  instructions?: CollectionInstruction[];
}

/**
 * Writes an artifact's text from a transcript. Implementations: the local extractive engine (quotes
 * and arranges the transcript; it cannot translate), Amazon Bedrock (Converse), OpenAI-compatible chat
 * completions. Every piece of evidence must quote a segment that exists; podcast lines cite segments.
 * Errors: `ProviderThrottledError`, `GenerationFailedError` (src/ports/generation-errors.ts).
 */
export interface ArtifactEngine {
  readonly name: string;
  /** False for an engine that cannot follow the collections' instructions (the local extractive one). */
  readonly followsInstructions: boolean;
  generateArtifact<K extends ArtifactKind>(request: ArtifactRequest<K>): Promise<ArtifactDrafts[K]>;
}

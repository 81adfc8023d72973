import type { ArtifactDrafts, ArtifactKind } from '../domain/artifacts.ts';
import type { Transcription } from '../domain/transcript.ts';

export interface ArtifactRequest<K extends ArtifactKind = ArtifactKind> {
  kind: K;
  transcription: Transcription;
  title: string;
  /** The language to write in: a code such as `en` or `pt-BR` (`auto` is resolved before this). */
  language: string;
  /** When the recording was made or uploaded (epoch ms). */
  reference_time: number;
}

/**
 * Writes an artifact's text from a transcript. Implementations: the local extractive engine (quotes
 * and arranges the transcript; it cannot translate), Amazon Bedrock (Converse), OpenAI-compatible chat
 * completions. Every piece of evidence must quote a segment that exists; podcast lines cite segments.
 * Errors: `ProviderThrottledError`, `GenerationFailedError` (src/ports/generation-errors.ts).
 */
export interface ArtifactEngine {
  readonly name: string;
  generateArtifact<K extends ArtifactKind>(request: ArtifactRequest<K>): Promise<ArtifactDrafts[K]>;
}

import { type ArtifactDrafts, type ArtifactKind, artifactDraftSchemas } from '../../../domain/artifacts.ts';
import type { ArtifactEngine, ArtifactRequest } from '../../../ports/artifact-engine.ts';
import { GenerationFailedError } from '../../../ports/generation-errors.ts';
import { loadNlp } from '../nlp.ts';
import { analyse, assertSameLanguage } from './analysis.ts';
import { deepResearch } from './deep-research.ts';
import { epiphany } from './epiphany.ts';
import { podcast } from './podcast.ts';

/**
 * Artifacts without a language model: it quotes and arranges the transcript, never invents. Links,
 * claims, questions and the podcast's retelling are chosen by the same statistics and patterns as the
 * extractive Insights (TextRank, TF-IDF keyphrases, commitment / decision / question patterns); the
 * connecting text is templated from what was extracted. It cannot translate: a request for another
 * language than the transcript's fails with `GenerationFailedError`, as does a transcript without speech.
 */
export class ExtractiveArtifactEngine implements ArtifactEngine {
  readonly name = 'local-extractive';
  /** It picks sentences from the transcript: instructions cannot change what it picks (results say so). */
  readonly followsInstructions = false;

  async generateArtifact<K extends ArtifactKind>(request: ArtifactRequest<K>): Promise<ArtifactDrafts[K]> {
    await loadNlp();
    return extractArtifact(request);
  }
}

/** The engine's work, once `loadNlp()` has loaded the model. */
export function extractArtifact<K extends ArtifactKind>(request: ArtifactRequest<K>): ArtifactDrafts[K] {
  assertSameLanguage(request.language, request.transcription.language);
  const analysis = analyse(request.transcription, request.reference_time);
  const kind: ArtifactKind = request.kind;
  let draft: ArtifactDrafts[ArtifactKind];
  switch (kind) {
    case 'epiphany':
      draft = epiphany(analysis);
      break;
    case 'deep_research':
      draft = deepResearch(analysis);
      break;
    case 'podcast':
      draft = podcast(analysis, request.title);
      break;
    default:
      throw new GenerationFailedError(`Unknown artifact kind: ${String(kind satisfies never)}`);
  }
  // The templates are meant to always fit the schema; a miss is a bug reported as a failed generation.
  const checked = artifactDraftSchemas[kind].safeParse(draft);
  if (!checked.success) {
    throw new GenerationFailedError(
      `The extractive ${kind} did not fit its schema: ${checked.error.message}`,
    );
  }
  return draft as ArtifactDrafts[K];
}

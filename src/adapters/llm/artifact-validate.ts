import {
  type ArtifactDrafts,
  type ArtifactKind,
  artifactDraftSchemas,
  type DeepResearchContent,
  deepResearchContent,
  type EpiphanyContent,
  type Evidence,
  epiphanyContent,
  evidence,
  isQuoteOf,
  normaliseForQuote,
  type PodcastScript,
  podcastScript,
} from '../../domain/artifacts.ts';
import type { ConversationSegment } from '../../domain/transcript.ts';
import * as z from '../../domain/zod-mini.ts';
import { GenerationFailedError } from '../../ports/generation-errors.ts';
import { parseModelOutput, parseWith } from './model-output.ts';

/** The segments shown to the model, by `start_ms` (two speakers can start at the same moment). */
export type ShownSegments = ReadonlyMap<number, readonly string[]>;

export function shownSegments(segments: readonly ConversationSegment[]): ShownSegments {
  const shown = new Map<number, string[]>();
  for (const segment of segments)
    shown.set(segment.start_ms, [...(shown.get(segment.start_ms) ?? []), segment.text]);
  return shown;
}

/**
 * Checks a model's artifact and makes it safe to store. The output must parse and match the kind's
 * schema; evidence is kept only when its `start_ms` is a segment the model was shown and its quote is
 * that segment's text word for word; items left without required evidence are dropped, and podcast
 * citations of segments not shown are removed. What is left must still be an artifact worth having.
 * Error messages name what is wrong, never quote the output.
 */
export function validateArtifact<K extends ArtifactKind>(
  kind: K,
  output: unknown,
  shown: ShownSegments,
): ArtifactDrafts[K] {
  return validators[kind](parseModelOutput(output), shown);
}

type Validators = { [P in ArtifactKind]: (value: unknown, shown: ShownSegments) => ArtifactDrafts[P] };

const validators: Validators = {
  epiphany: groundEpiphany,
  deep_research: groundDeepResearch,
  podcast: groundPodcast,
};

// Evidence arrays are parsed without their minimum: an item whose evidence is empty or invented is
// dropped below, the same as an item whose quotes do not match, instead of failing the whole answer.
const anyEvidence = z.array(evidence);
const looseEpiphany = z.object({
  ideas: z.array(z.extend(epiphanyContent.shape.ideas.def.element, { evidence: anyEvidence })),
});
const looseDeepResearch = z.extend(deepResearchContent, {
  research_questions: z.array(
    z.extend(deepResearchContent.shape.research_questions.def.element, { evidence: anyEvidence }),
  ),
  claims: z.array(z.extend(deepResearchContent.shape.claims.def.element, { evidence: anyEvidence })),
});

function groundEpiphany(value: unknown, shown: ShownSegments): EpiphanyContent {
  const parsed = parseWith(looseEpiphany, value, 'epiphany');
  const ideas = withEvidence(parsed.ideas, shown);
  if (ideas.length === 0) {
    throw new GenerationFailedError(
      'No idea has evidence that quotes, word for word, a transcript line at the start_ms it names',
    );
  }
  return final('epiphany', { ideas });
}

function groundDeepResearch(value: unknown, shown: ShownSegments): DeepResearchContent {
  const parsed = parseWith(looseDeepResearch, value, 'deep research');
  return final('deep_research', {
    summary: parsed.summary,
    research_questions: withEvidence(parsed.research_questions, shown),
    claims: withEvidence(parsed.claims, shown),
    gaps: parsed.gaps.map((gap) => ({ ...gap, evidence: groundEvidence(gap.evidence, shown) })),
    next_steps: parsed.next_steps.map((step) => ({
      ...step,
      evidence: groundEvidence(step.evidence, shown),
    })),
  });
}

function groundPodcast(value: unknown, shown: ShownSegments): PodcastScript {
  const parsed = parseWith(podcastScript, value, 'podcast script');
  const lines = parsed.lines.map((line) => ({
    ...line,
    citations: [...new Set(line.citations.filter((ms) => shown.has(ms)))].sort((a, b) => a - b),
  }));
  if (!lines.some((line) => line.citations.length > 0)) {
    throw new GenerationFailedError('No podcast line cites a transcript line it was shown (start_ms)');
  }
  return final('podcast', { lines });
}

/** The items that keep at least one grounded piece of evidence. */
function withEvidence<T extends { evidence: Evidence[] }>(items: T[], shown: ShownSegments): T[] {
  return items
    .map((item) => ({ ...item, evidence: groundEvidence(item.evidence, shown) }))
    .filter((item) => item.evidence.length > 0);
}

/** Evidence whose quote is, word for word, the text of a shown segment at its `start_ms`; no repeats. */
export function groundEvidence(items: readonly Evidence[], shown: ShownSegments): Evidence[] {
  const seen = new Set<string>();
  const kept: Evidence[] = [];
  for (const item of items) {
    const quote = item.quote.trim();
    const key = `${item.start_ms} ${normaliseForQuote(quote)}`;
    if (seen.has(key) || !(shown.get(item.start_ms) ?? []).some((text) => isQuoteOf(quote, text))) continue;
    seen.add(key);
    kept.push({ start_ms: item.start_ms, quote });
  }
  return kept;
}

/** The grounded artifact checked against the strict domain schema (evidence minimums included). */
function final<K extends ArtifactKind>(kind: K, value: ArtifactDrafts[K]): ArtifactDrafts[K] {
  return parseWith(artifactDraftSchemas[kind], value, kind) as ArtifactDrafts[K];
}

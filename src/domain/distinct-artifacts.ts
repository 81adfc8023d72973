import type { ArtifactDrafts, ArtifactKind, DeepResearchContent, EpiphanyContent } from './artifacts.ts';
import { distinctBy } from './distinct-items.ts';

/**
 * An artifact's lists with each item once, whichever engine wrote them (see distinct-insights.ts):
 * the first occurrence is kept with its evidence. A podcast script is left as written: it is a
 * conversation, where a line such as "Right." may well come twice, not a list of findings.
 */
export function distinctDraft<K extends ArtifactKind>(kind: K, draft: ArtifactDrafts[K]): ArtifactDrafts[K] {
  if (kind === 'epiphany') return distinctEpiphany(draft as EpiphanyContent) as ArtifactDrafts[K];
  if (kind === 'deep_research')
    return distinctDeepResearch(draft as DeepResearchContent) as ArtifactDrafts[K];
  return draft;
}

function distinctEpiphany(content: EpiphanyContent): EpiphanyContent {
  return { ideas: distinctBy(content.ideas, (idea) => idea.title) };
}

function distinctDeepResearch(content: DeepResearchContent): DeepResearchContent {
  return {
    summary: content.summary,
    research_questions: distinctBy(content.research_questions, (item) => item.question),
    claims: distinctBy(content.claims, (item) => item.claim),
    gaps: distinctBy(content.gaps, (item) => item.gap),
    next_steps: distinctBy(content.next_steps, (item) => item.step),
  };
}

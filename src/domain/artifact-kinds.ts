/**
 * The kinds of artifact, apart from their zod schemas (src/domain/artifacts.ts): request validation
 * and job messages name the kinds without loading the schemas of the content at cold start.
 */
export const ARTIFACT_KINDS = ['epiphany', 'deep_research', 'podcast'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

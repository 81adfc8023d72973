import type { MadeWithInstructions } from './collection-instructions.ts';
import type { MadeFromTranscript } from './transcript-freshness.ts';
import * as z from './zod-mini.ts';

/**
 * Artifacts, schema version 1 (openapi.yaml `Artifact`). As with Insights, the zod schemas check what
 * an engine returns and give LLM adapters the JSON schema to fill. Every statement is grounded:
 * `evidence` quotes the transcript segment that starts at `start_ms` (checked on return), and
 * podcast lines cite the segments they retell. On zod/mini (./zod-mini.ts), as the stored results
 * are read through these schemas by API functions.
 */

import type { ArtifactKind } from './artifact-kinds.ts';

export { ARTIFACT_KINDS, type ArtifactKind } from './artifact-kinds.ts';

/** A string of `min` to `max` characters. */
const between = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));
const text = between(1, 2000);
const startMs = z.number().check(z.int(), z.nonnegative());

/** A verbatim quote (a few words to a sentence) from the segment starting at `start_ms`. */
export const evidence = z.object({ start_ms: startMs, quote: between(1, 500) });
export type Evidence = z.infer<typeof evidence>;
const grounded = z.array(evidence).check(z.minLength(1));

export const epiphanyContent = z.object({
  ideas: z
    .array(
      z.object({
        title: between(1, 200),
        /** The non-obvious link between parts of the conversation. */
        connection: text,
        /** What follows from it: a consequence, risk or opportunity. */
        implication: text,
        evidence: grounded,
      }),
    )
    .check(z.minLength(1)),
});

export const deepResearchContent = z.object({
  summary: text,
  research_questions: z.array(z.object({ question: text, rationale: text, evidence: grounded })),
  claims: z.array(z.object({ claim: text, evidence: grounded })),
  /** What the note leaves open or unsupported; evidence shows where it came up, when it did. */
  gaps: z.array(z.object({ gap: text, evidence: z.array(evidence) })),
  next_steps: z.array(z.object({ step: text, evidence: z.array(evidence) })),
});

export const PODCAST_HOSTS = ['host_1', 'host_2'] as const;
export type PodcastHost = (typeof PODCAST_HOSTS)[number];

/** The script an engine writes; the service adds the hosts' voices and the audio. */
export const podcastScript = z.object({
  lines: z
    .array(
      z.object({
        host: z.enum(PODCAST_HOSTS),
        text: between(1, 600),
        /** `start_ms` of the segments the line retells; empty only for a greeting or sign-off. */
        citations: z.array(startMs),
      }),
    )
    .check(z.minLength(2), z.maxLength(80)),
});

export type EpiphanyContent = z.infer<typeof epiphanyContent>;
export type DeepResearchContent = z.infer<typeof deepResearchContent>;
export type PodcastScript = z.infer<typeof podcastScript>;

/** What an engine returns for each kind. */
export interface ArtifactDrafts {
  epiphany: EpiphanyContent;
  deep_research: DeepResearchContent;
  podcast: PodcastScript;
}
export const artifactDraftSchemas = {
  epiphany: epiphanyContent,
  deep_research: deepResearchContent,
  podcast: podcastScript,
} as const;

export interface PodcastAudio {
  content_type: 'audio/mpeg';
  duration_ms: number;
  bytes: number;
  /** Filled in when the artifact is read: a time-limited download link. */
  url?: string;
  expires_at?: number;
}

export interface PodcastContent {
  hosts: { id: PodcastHost; name: string; voice: string }[];
  script: PodcastScript['lines'];
  audio: PodcastAudio;
}

export interface ArtifactContents {
  epiphany: EpiphanyContent;
  deep_research: DeepResearchContent;
  podcast: PodcastContent;
}

/** Records the transcript it was generated from (src/domain/transcript-freshness.ts). */
export interface Artifact<K extends ArtifactKind = ArtifactKind>
  extends MadeFromTranscript,
    MadeWithInstructions {
  note_id: string;
  kind: K;
  schema_version: 1;
  title: string;
  /** The language the artifact is written in (a language code such as `en` or `pt-BR`). */
  language: string;
  /** e.g. `local-extractive`, `local-extractive+flite`, `bedrock:<model>+polly`. */
  engine: string;
  generated_at: number;
  content: ArtifactContents[K];
}

/** Lower-case, punctuation-free, single-spaced: how quotes are compared with the transcript. */
export function normaliseForQuote(value: string): string {
  return value
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();
}

/** True when `quote` appears, word for word (case and punctuation aside), in `segmentText`. */
export function isQuoteOf(quote: string, segmentText: string): boolean {
  const needle = normaliseForQuote(quote);
  return needle !== '' && ` ${normaliseForQuote(segmentText)} `.includes(` ${needle} `);
}

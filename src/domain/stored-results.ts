import { StoredObjectUnreadableError } from '../ports/blob-store.ts';
import {
  type Artifact,
  type ArtifactKind,
  deepResearchContent,
  epiphanyContent,
  PODCAST_HOSTS,
  podcastScript,
} from './artifacts.ts';
import type { DomainDeps } from './deps.ts';
import { type Insights, insightsContent } from './insights.ts';
import type { Job, TranscriptPointer } from './job.ts';
import { objectKeys } from './object-keys.ts';
import type { Transcription } from './transcript.ts';
import * as z from './zod-mini.ts';

/**
 * Reading results back from object storage without trusting them blindly: an object that should be
 * there may be missing or damaged (a disk fault, a hand edit). Each reader answers the parsed result,
 * or `unreadable`; callers turn that into a failed job with a detail that says how to recover, never
 * a lasting 500. Parse errors are never passed on: their messages quote the content. On zod/mini
 * (./zod-mini.ts): the API functions that read notes load these schemas at cold start.
 */

export type StoredRead<T> = T | 'unreadable';

/** Why generation stops when the transcript it starts from is gone or unreadable. */
export const NO_TRANSCRIPTION = 'The note has no readable transcription any more: transcribe it again';

const nonNegative = () => z.number().check(z.nonnegative());
const fraction = () => z.number().check(z.gte(0), z.lte(1));

const segment = z.object({
  start_ms: nonNegative(),
  end_ms: nonNegative(),
  speaker: z.string(),
  text: z.string(),
  has_overlap: z.boolean(),
  words: z.optional(
    z.array(
      z.object({
        text: z.string(),
        start_ms: z.number(),
        end_ms: z.number(),
        confidence: z.optional(fraction()),
        span_confidence: z.optional(fraction()),
      }),
    ),
  ),
  // Absent on transcripts stored before confidences were kept: they read as unscored.
  confidence: z.optional(z.nullable(fraction())),
});

const notice = z.object({
  code: z.enum(['no_speech', 'low_confidence', 'engine_fallback']),
  detail: z.string(),
});

const transcriptionSchema = z.looseObject({
  full_text: z.string(),
  timestamped_full_text: z.string(),
  conversation_segments: z.array(segment),
  duration_ms: nonNegative(),
  language: z.string(),
  engine: z.string(),
  confidence: z.optional(z.nullable(fraction())),
  notice: z.optional(z.nullable(notice)),
  speakers_by: z.optional(z.string()),
});

/** The collections' instructions a result was made with (src/domain/collection-instructions.ts). */
const madeWithInstructions = {
  instructions: z.optional(
    z.array(z.object({ collection_id: z.string(), name: z.string(), text: z.string() })),
  ),
  instructions_followed: z.optional(z.boolean()),
};

const insightsSchema = z.looseObject({
  ...insightsContent.shape,
  note_id: z.string(),
  schema_version: z.literal(1),
  engine: z.string(),
  generated_at: z.number(),
  ...madeWithInstructions,
});

const podcastContent = z.looseObject({
  hosts: z.array(z.object({ id: z.enum(PODCAST_HOSTS), name: z.string(), voice: z.string() })),
  script: podcastScript.shape.lines,
  audio: z.looseObject({
    content_type: z.literal('audio/mpeg'),
    duration_ms: z.number(),
    bytes: z.number(),
  }),
});

const artifactContentSchemas = {
  epiphany: epiphanyContent,
  deep_research: deepResearchContent,
  podcast: podcastContent,
} as const;

function artifactSchema(kind: ArtifactKind) {
  return z.looseObject({
    note_id: z.string(),
    kind: z.literal(kind),
    schema_version: z.literal(1),
    title: z.string(),
    language: z.string(),
    engine: z.string(),
    generated_at: z.number(),
    content: artifactContentSchemas[kind],
    ...madeWithInstructions,
  });
}

const pointerSchema = z.object({
  revision: z.number(),
  key: z.nullable(z.string()),
  edited_at: z.nullable(z.number()),
  highest: z.number(),
});

/** A corrected revision as stored: the whole transcript, and the state it replaced (for undo). */
const revisionSchema = z.extend(transcriptionSchema, {
  revision: z.number(),
  edited_at: z.number(),
  previous: pointerSchema,
});

export type StoredRevision = z.infer<typeof revisionSchema>;

/**
 * The note's CURRENT transcript: the latest correction when there is one, otherwise the recogniser's
 * output (revision 0), with the recogniser run it descends from. Every reader (exports, Ask, the
 * index, generation) goes through here.
 */
export async function readTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<StoredRead<Transcription>> {
  return readTranscriptionOfJob(
    deps,
    accountId,
    noteId,
    await deps.notes.getJob(accountId, noteId, 'transcription'),
  );
}

/** The same, from the note's transcription job already read. */
export async function readTranscriptionOfJob(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  job: Job | null,
): Promise<StoredRead<Transcription>> {
  const transcription = await readTranscriptionAt(deps, accountId, noteId, job?.transcript);
  if (transcription === 'unreadable' || job?.recognition === undefined) return transcription;
  return { ...transcription, recognition: job.recognition };
}

/** The transcript a pointer names (the recogniser's output when there is none). */
export async function readTranscriptionAt(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  pointer: TranscriptPointer | undefined,
): Promise<StoredRead<Transcription>> {
  if (!pointer?.key) return readOriginalTranscription(deps, accountId, noteId);
  const stored = await readRevision(deps, pointer.key);
  if (stored === 'unreadable') return stored;
  const { previous: _previous, ...transcription } = stored;
  return transcription;
}

/** The recogniser's own output, never changed by corrections (revision 0). */
export async function readOriginalTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<StoredRead<Transcription>> {
  const original = await readStored(deps, objectKeys.transcription(accountId, noteId), transcriptionSchema);
  return original === 'unreadable' ? original : { ...original, revision: 0, edited_at: null };
}

export function readRevision(deps: DomainDeps, key: string): Promise<StoredRead<StoredRevision>> {
  return readStored(deps, key, revisionSchema);
}

export function readInsights(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<StoredRead<Insights>> {
  return readStored(deps, objectKeys.insights(accountId, noteId), insightsSchema) as Promise<
    StoredRead<Insights>
  >;
}

export function readArtifactObject(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: ArtifactKind,
): Promise<StoredRead<Artifact>> {
  return readStored(deps, objectKeys.artifact(accountId, noteId, kind), artifactSchema(kind)) as Promise<
    StoredRead<Artifact>
  >;
}

async function readStored<T>(
  deps: DomainDeps,
  key: string,
  schema: z.core.$ZodType<T>,
): Promise<StoredRead<T>> {
  let value: unknown;
  try {
    value = await deps.blobs.getJson<unknown>(key);
  } catch (error) {
    if (error instanceof StoredObjectUnreadableError) return 'unreadable';
    throw error;
  }
  if (value === null) return 'unreadable';
  const parsed = z.safeParse(schema, value);
  return parsed.success ? parsed.data : 'unreadable';
}

/**
 * Ends a completed job whose stored result can no longer be read as failed, with a detail naming the
 * way back (a new request runs it again: a transcription from the stored audio). Returns the job as
 * it is now (failed, or whatever a concurrent change made it).
 */
export async function failLostResult(deps: DomainDeps, job: Job, detail: string): Promise<Job> {
  for (let current: Job | null = job; current; ) {
    if (current.status !== 'completed') return current;
    const failed: Job = { ...current, status: 'failed', stage: 'failed', detail, updated_at: deps.now() };
    if (await deps.notes.replaceJob(current, failed)) return failed;
    current = await deps.notes.getJob(job.account_id, job.note_id, job.kind);
  }
  return job;
}

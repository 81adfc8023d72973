import { ARTIFACT_KINDS, type Artifact, type ArtifactKind, type PodcastContent } from './artifacts.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, NotFoundError } from './errors.ts';
import {
  GENERATION_STAGES,
  isInFlight,
  type Job,
  type JobStatusView,
  jobStatusView,
  queuedJob,
} from './job.ts';
import { type LanguageSupport, resolveArtifactLanguage, satisfiesLanguage } from './languages.ts';
import { requireNote } from './notes.ts';
import { objectKeys } from './object-keys.ts';
import type { Transcription } from './transcript.ts';
import { FailedJobError } from './transcription.ts';

export interface ArtifactDeps extends DomainDeps {
  languages: LanguageSupport;
}

export interface ArtifactOptions {
  /** `auto` or a language code. */
  language: string;
  regenerate: boolean;
}

export type ArtifactResult = { kind: 'ready'; artifact: Artifact } | { kind: 'pending'; job: JobStatusView };

/**
 * generateNoteArtifact. An artifact that exists is returned (200) unless `regenerate` is set or an
 * explicit language differs from the one it was written in; a job in flight is returned as it is
 * (202); otherwise a new run starts (202) and replaces the artifact when it completes.
 */
export async function requestArtifact(
  deps: ArtifactDeps,
  accountId: string,
  noteId: string,
  kind: ArtifactKind,
  options: ArtifactOptions,
): Promise<ArtifactResult> {
  const note = await requireNote(deps, accountId, noteId);
  if (note.state === 'trashed') throw new ConflictError('This note is in the trash: restore it first');
  const transcriptionJob = await deps.notes.getJob(accountId, noteId, 'transcription');
  const transcription =
    transcriptionJob?.status === 'completed'
      ? await deps.blobs.getJson<Transcription>(objectKeys.transcription(accountId, noteId))
      : null;
  if (!transcription) {
    throw new ConflictError('Artifacts need a completed transcription: transcribe the note first');
  }
  const language = resolveArtifactLanguage(options.language, transcription.language, kind, deps.languages);

  const jobKind = `artifact:${kind}` as const;
  const existing = await deps.notes.getJob(accountId, noteId, jobKind);
  if (existing && isInFlight(existing)) return { kind: 'pending', job: jobStatusView(existing, note.title) };
  if (existing?.status === 'completed' && !options.regenerate) {
    const artifact = await readArtifact(deps, accountId, noteId, kind);
    if (artifact && satisfiesLanguage(options.language, artifact.language)) {
      return { kind: 'ready', artifact };
    }
  }

  const now = deps.now();
  const fresh = queuedJob(accountId, noteId, jobKind, now, GENERATION_STAGES.queued, existing?.attempts ?? 0);
  const stored = existing
    ? (await deps.notes.replaceJob(existing, fresh))
      ? fresh
      : null
    : await createdOrNull(deps, fresh);
  // Someone else changed the job in between (a concurrent request): answer with what is there now.
  if (!stored) return requestArtifact(deps, accountId, noteId, kind, { ...options, regenerate: false });
  await deps.queue.requestGeneration({
    type: 'artifact',
    account_id: accountId,
    note_id: noteId,
    kind,
    language,
  });
  return { kind: 'pending', job: jobStatusView(stored, note.title) };
}

async function createdOrNull(deps: DomainDeps, job: Job): Promise<Job | null> {
  const { job: stored, created } = await deps.notes.createJobIfAbsent(job);
  return created ? stored : null;
}

/** getNoteArtifact: 200 with the artifact, 202 while it is generated, 409 when its job failed. */
export async function getArtifact(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: ArtifactKind,
): Promise<ArtifactResult> {
  const note = await requireNote(deps, accountId, noteId);
  const job = await deps.notes.getJob(accountId, noteId, `artifact:${kind}`);
  if (!job)
    throw new NotFoundError(`This note has no ${kind} artifact: generate it with generateNoteArtifact`);
  if (job.status === 'failed') throw new FailedJobError(jobStatusView(job, note.title));
  if (job.status !== 'completed') return { kind: 'pending', job: jobStatusView(job, note.title) };
  const artifact = await readArtifact(deps, accountId, noteId, kind);
  if (!artifact) throw new Error('Artifact object missing for a completed job');
  return { kind: 'ready', artifact };
}

/** The stored artifact, with a fresh download link for podcast audio. */
async function readArtifact(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  kind: ArtifactKind,
): Promise<Artifact | null> {
  const artifact = await deps.blobs.getJson<Artifact>(objectKeys.artifact(accountId, noteId, kind));
  if (artifact?.kind !== 'podcast') return artifact;
  const content = artifact.content as PodcastContent;
  const link = await deps.blobs.presignDownload(
    objectKeys.podcastAudio(accountId, noteId),
    `podcast-${noteId}.mp3`,
  );
  return {
    ...artifact,
    content: { ...content, audio: { ...content.audio, url: link.url, expires_at: link.expires_at } },
  };
}

/** Removes every artifact of a note (with its transcription: they are derived from it). */
export async function deleteArtifacts(deps: DomainDeps, accountId: string, noteId: string): Promise<void> {
  const jobs = await Promise.all(
    ARTIFACT_KINDS.map((kind) => deps.notes.getJob(accountId, noteId, `artifact:${kind}`)),
  );
  for (const job of jobs) if (job) await deps.notes.deleteJob(job);
  await deps.blobs.deletePrefix(objectKeys.artifactsPrefix(accountId, noteId));
}

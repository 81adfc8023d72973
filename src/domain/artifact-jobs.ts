import { ARTIFACT_KINDS, type ArtifactKind } from './artifact-kinds.ts';
import type { Artifact, PodcastContent } from './artifacts.ts';
import { filedCollections } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, FailedJobError, NotFoundError } from './errors.ts';
import { requireSpeechToGenerateFrom } from './generation-source.ts';
import {
  GENERATION_STAGES,
  isHeld,
  type Job,
  type JobKind,
  type JobStatusView,
  jobStatusView,
  queuedJob,
} from './job.ts';
import { artifactKindOf, requestJobRun } from './job-requests.ts';
import { deleteJobOfKind } from './job-transitions.ts';
import { type LanguageSupport, resolveArtifactLanguage, satisfiesLanguage } from './languages.ts';
import { transcriptLost } from './lost-results.ts';
import { artifactWithNames } from './named-results.ts';
import { requireNoteWithItems } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';
import { type Shown, withFreshness } from './result-freshness.ts';
import {
  failLostResult,
  readArtifactObject,
  readTranscriptionOfJob,
  type StoredRead,
} from './stored-results.ts';

export interface ArtifactDeps extends DomainDeps {
  languages: LanguageSupport;
}

export interface ArtifactOptions {
  /** `auto` or a language code. */
  language: string;
  regenerate: boolean;
}

export type ArtifactResult =
  | { kind: 'ready'; artifact: Shown<Artifact> }
  | { kind: 'pending'; job: JobStatusView };

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
  const { note, jobs, collectionIds } = await requireNoteWithItems(deps, accountId, noteId);
  if (note.state === 'trashed') throw new ConflictError('This note is in the trash: restore it first');
  const transcriptionJob = jobs.get('transcription') ?? null;
  requireSpeechToGenerateFrom(transcriptionJob, 'Artifacts');
  let transcription =
    transcriptionJob?.status === 'completed'
      ? await readTranscriptionOfJob(deps, accountId, noteId, transcriptionJob)
      : null;
  if (transcriptionJob && transcription === 'unreadable') {
    await transcriptLost(deps, transcriptionJob);
    transcription = null;
  }
  if (!transcription || transcription === 'unreadable') {
    throw new ConflictError('Artifacts need a completed transcription: transcribe the note first');
  }
  const language = resolveArtifactLanguage(options.language, transcription.language, kind, deps.languages);

  const jobKind = `artifact:${kind}` as const;
  const now = deps.now();
  const existing = jobs.get(jobKind) ?? null;
  if (existing && isHeld(existing, now)) return { kind: 'pending', job: jobStatusView(existing, note.title) };
  if (existing?.status === 'queued') {
    // Its message may have been lost with a stopped runtime: sent again (a duplicate is harmless).
    await requestJobRun(deps, existing, existing.language ?? language);
    return { kind: 'pending', job: jobStatusView(existing, note.title) };
  }
  if (existing?.status === 'completed' && !options.regenerate) {
    const [artifact, filed] = await Promise.all([
      readArtifact(deps, existing, kind),
      filedCollections(deps, accountId, collectionIds),
    ]);
    if (artifact !== 'unreadable' && satisfiesLanguage(options.language, artifact.language)) {
      const named = artifactWithNames(artifact, note.speaker_names);
      return { kind: 'ready', artifact: withFreshness(named, transcriptionJob, filed) };
    }
  }

  const fresh: Job = {
    ...queuedJob(accountId, noteId, jobKind, now, GENERATION_STAGES.queued, existing?.attempts ?? 0),
    language,
  };
  const stored = existing
    ? (await deps.notes.replaceJob(existing, fresh))
      ? fresh
      : null
    : await createdOrNull(deps, fresh);
  // Someone else changed the job in between (a concurrent request): answer with what is there now.
  if (!stored) return requestArtifact(deps, accountId, noteId, kind, { ...options, regenerate: false });
  await requestJobRun(deps, stored);
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
  const { note, jobs, collectionIds } = await requireNoteWithItems(deps, accountId, noteId);
  const job = jobs.get(`artifact:${kind}`);
  if (!job)
    throw new NotFoundError(`This note has no ${kind} artifact: generate it with generateNoteArtifact`);
  if (job.status === 'failed') throw new FailedJobError(jobStatusView(job, note.title));
  if (job.status !== 'completed') return { kind: 'pending', job: jobStatusView(job, note.title) };
  // The note's collections, for the instructions the artifact is compared with.
  const [artifact, filed] = await Promise.all([
    readArtifact(deps, job, kind),
    filedCollections(deps, accountId, collectionIds),
  ]);
  if (artifact === 'unreadable') {
    throw new FailedJobError(jobStatusView(await artifactLost(deps, job), note.title));
  }
  const named = artifactWithNames(artifact, note.speaker_names);
  return { kind: 'ready', artifact: withFreshness(named, jobs.get('transcription') ?? null, filed) };
}

/**
 * The stored artifact, with a fresh download link for podcast audio. One that can no longer be read
 * (its JSON, or a podcast's audio, missing or damaged) fails its job: requesting it again re-runs it.
 */
async function readArtifact(deps: DomainDeps, job: Job, kind: ArtifactKind): Promise<StoredRead<Artifact>> {
  const { account_id: accountId, note_id: noteId } = job;
  const artifact = await readArtifactObject(deps, accountId, noteId, kind);
  if (artifact === 'unreadable' || artifact.kind !== 'podcast') return artifact;
  const audioKey = objectKeys.podcastAudio(accountId, noteId);
  if ((await deps.blobs.objectSize(audioKey)) === null) return 'unreadable';
  const content = artifact.content as PodcastContent;
  const link = await deps.blobs.presignDownload(audioKey, `podcast-${noteId}.mp3`);
  return {
    ...artifact,
    content: { ...content, audio: { ...content.audio, url: link.url, expires_at: link.expires_at } },
  };
}

function artifactLost(deps: DomainDeps, job: Job): Promise<Job> {
  deps.warn?.('stored artifact unreadable; job marked failed', {
    noteId: job.note_id,
    object: objectKeys.artifact(job.account_id, job.note_id, artifactKindOf(job.kind)),
  });
  return failLostResult(
    deps,
    job,
    'The stored artifact could not be read (missing or damaged). Request it again with generateNoteArtifact.',
  );
}

/** Removes every artifact of a note (with its transcription: they are derived from it). */
export async function deleteArtifacts(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  /** The note's jobs as just read: one found there is deleted as read; others are looked up here. */
  jobs?: ReadonlyMap<JobKind, Job>,
): Promise<void> {
  // The jobs first: a run in progress (a podcast being voiced) loses its claim and removes its output.
  await Promise.all(
    ARTIFACT_KINDS.map((kind) =>
      deleteJobOfKind(deps, accountId, noteId, `artifact:${kind}`, jobs?.get(`artifact:${kind}`)),
    ),
  );
  await deps.blobs.deletePrefix(objectKeys.artifactsPrefix(accountId, noteId));
}

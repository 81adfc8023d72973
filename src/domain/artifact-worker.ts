import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactEngine } from '../ports/artifact-engine.ts';
import { GenerationFailedError, ProviderThrottledError } from '../ports/generation-errors.ts';
import type { SpeechSynthesizer } from '../ports/speech-synthesizer.ts';
import {
  type Artifact,
  type ArtifactContents,
  type ArtifactKind,
  artifactDraftSchemas,
  PODCAST_HOSTS,
  type PodcastContent,
  type PodcastScript,
} from './artifacts.ts';
import type { DomainDeps } from './deps.ts';
import type { GenerationOutcome } from './insights-worker.ts';
import { GENERATION_STAGES } from './job.ts';
import { claimJob, completeJob, failJob } from './job-transitions.ts';
import type { Note } from './note.ts';
import { objectKeys } from './object-keys.ts';
import type { Transcription } from './transcript.ts';

export interface ArtifactWorkerDeps extends DomainDeps {
  artifacts: ArtifactEngine;
  voices: SpeechSynthesizer;
}

export interface ArtifactTask {
  accountId: string;
  noteId: string;
  kind: ArtifactKind;
  language: string;
}

const TITLE_SUFFIX: Record<ArtifactKind, string> = {
  epiphany: 'epiphanies',
  deep_research: 'research brief',
  podcast: 'the podcast',
};
const HOST_NAMES = ['Alex', 'Sam'] as const;

/**
 * Generates one artifact. Like Insights: at-least-once safe (claim, fixed result keys), a throttled
 * provider is thrown for the queue to retry, anything else the engine could not do fails the job.
 */
export async function runArtifact(deps: ArtifactWorkerDeps, task: ArtifactTask): Promise<GenerationOutcome> {
  const { accountId, noteId, kind } = task;
  const jobKind = `artifact:${kind}` as const;
  const note = await deps.notes.getNote(accountId, noteId);
  if (!note) return 'skipped';
  if (!(await claimJob(deps, accountId, noteId, jobKind, GENERATION_STAGES.generating))) return 'skipped';

  const transcription = await deps.blobs.getJson<Transcription>(objectKeys.transcription(accountId, noteId));
  if (!transcription)
    return failJob(deps, accountId, noteId, jobKind, 'The note has no transcription any more');
  let content: ArtifactContents[ArtifactKind];
  try {
    const draft = artifactDraftSchemas[kind].parse(
      await deps.artifacts.generateArtifact({
        kind,
        transcription,
        title: note.title,
        language: task.language,
        reference_time: note.audio?.uploaded_at ?? note.created_at,
      }),
    );
    content =
      kind === 'podcast'
        ? await podcast(deps, task, draft as PodcastScript)
        : (draft as ArtifactContents['epiphany' | 'deep_research']);
  } catch (error) {
    if (error instanceof ProviderThrottledError) throw error;
    const detail =
      error instanceof GenerationFailedError ? error.message : `The ${kind} could not be generated`;
    return failJob(deps, accountId, noteId, jobKind, `${detail}. Request the artifact again to retry.`);
  }

  await deps.notes.updateJobStage(accountId, noteId, jobKind, GENERATION_STAGES.saving, deps.now());
  const key = objectKeys.artifact(accountId, noteId, kind);
  await deps.blobs.putJson(key, artifactOf(deps, note, task, content));
  return completeJob(deps, accountId, noteId, jobKind, key);
}

function artifactOf(
  deps: ArtifactWorkerDeps,
  note: Note,
  task: ArtifactTask,
  content: ArtifactContents[ArtifactKind],
): Artifact {
  return {
    note_id: note.note_id,
    kind: task.kind,
    schema_version: 1,
    title: `${note.title}: ${TITLE_SUFFIX[task.kind]}`,
    language: task.language,
    engine: task.kind === 'podcast' ? `${deps.artifacts.name}+${deps.voices.name}` : deps.artifacts.name,
    generated_at: deps.now(),
    content,
  };
}

/** Voices the script and stores the audio next to the artifact. */
async function podcast(
  deps: ArtifactWorkerDeps,
  task: ArtifactTask,
  script: PodcastScript,
): Promise<PodcastContent> {
  const voices = deps.voices.hostVoices(task.language);
  if (!voices) throw new GenerationFailedError(`${deps.voices.name} has no voices for '${task.language}'`);
  await deps.notes.updateJobStage(
    task.accountId,
    task.noteId,
    `artifact:podcast`,
    'synthesizing',
    deps.now(),
  );
  const hosts = PODCAST_HOSTS.map((id, index) => ({
    id,
    name: HOST_NAMES[index] ?? id,
    voice: voices[index] ?? voices[0],
  }));
  const voiceOf = new Map(hosts.map((host) => [host.id, host.voice]));
  const workDir = await mkdtemp(join(tmpdir(), 'notes-podcast-'));
  try {
    const path = join(workDir, 'podcast.mp3');
    const { duration_ms } = await deps.voices.synthesize(
      script.lines.map((line) => ({ voice: voiceOf.get(line.host) ?? voices[0], text: line.text })),
      path,
    );
    const { size } = await stat(path);
    await deps.blobs.putFile(objectKeys.podcastAudio(task.accountId, task.noteId), path, 'audio/mpeg');
    return { hosts, script: script.lines, audio: { content_type: 'audio/mpeg', duration_ms, bytes: size } };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArtifactEngine } from '../ports/artifact-engine.ts';
import { GenerationFailedError } from '../ports/generation-errors.ts';
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
import { forEngine, madeWith } from './collection-instructions.ts';
import type { DomainDeps } from './deps.ts';
import { distinctDraft } from './distinct-artifacts.ts';
import { generationSubject } from './generation-source.ts';
import type { GenerationOutcome } from './insights-worker.ts';
import { GENERATION_STAGES, type Job } from './job.ts';
import { holdJob, JobLostError } from './job-hold.ts';
import { claimJob, completeJob, failJob } from './job-transitions.ts';
import type { Note } from './note.ts';
import { objectKeys } from './object-keys.ts';
import { withScratchDir } from './scratch.ts';
import { namedInText, type SpeakerNames } from './speaker-labels.ts';
import { NO_TRANSCRIPTION, readTranscription } from './stored-results.ts';
import { madeFrom } from './transcript-freshness.ts';
import { passesWithTime } from './transient-faults.ts';

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
const RETRY_HINT = 'Request the artifact again to retry.';

/**
 * Generates one artifact. Like Insights: at-least-once safe (claim, fixed result keys), a throttled
 * provider is thrown for the queue to retry, anything else the engine could not do fails the job.
 */
export async function runArtifact(deps: ArtifactWorkerDeps, task: ArtifactTask): Promise<GenerationOutcome> {
  const { accountId, noteId, kind } = task;
  const jobKind = `artifact:${kind}` as const;
  const subject = await generationSubject(deps, accountId, noteId);
  if (!subject) return 'skipped';
  const { note, instructions } = subject;
  const claimed = await claimJob(deps, accountId, noteId, jobKind, GENERATION_STAGES.generating);
  if (!claimed) return 'skipped';
  const key = objectKeys.artifact(accountId, noteId, kind);
  const outputs = kind === 'podcast' ? [key, objectKeys.podcastAudio(accountId, noteId)] : [key];
  return holdJob(deps, claimed, { outputs, requeueStage: GENERATION_STAGES.queued }, async (signal) => {
    const transcription = await readTranscription(deps, accountId, noteId);
    if (transcription === 'unreadable') {
      return failJob(deps, accountId, noteId, jobKind, NO_TRANSCRIPTION, claimed);
    }
    let content: ArtifactContents[ArtifactKind];
    try {
      // Any engine's lists, each item once: a looped recording or a model can repeat itself.
      const draft = distinctDraft(
        kind,
        artifactDraftSchemas[kind].parse(
          await deps.artifacts.generateArtifact({
            kind,
            transcription,
            ...(note.speaker_names ? { speaker_names: note.speaker_names } : {}),
            title: note.title,
            language: task.language,
            reference_time: note.audio?.uploaded_at ?? note.created_at,
            ...(instructions.length > 0 ? { instructions: forEngine(instructions) } : {}),
          }),
        ),
      );
      signal.throwIfAborted();
      content =
        kind === 'podcast'
          ? await podcast(deps, claimed, task, draft as PodcastScript, note.speaker_names, signal)
          : (draft as ArtifactContents['epiphany' | 'deep_research']);
    } catch (error) {
      if (passesWithTime(error) || signal.aborted) throw error;
      const detail =
        error instanceof GenerationFailedError ? error.message : `The ${kind} could not be generated`;
      return failJob(deps, accountId, noteId, jobKind, `${detail}. ${RETRY_HINT}`, claimed);
    }
    // Refused: this attempt no longer holds the job: write nothing more (holdJob removes a podcast's
    // audio if the job is gone).
    if (!(await deps.notes.updateJobStage(claimed, GENERATION_STAGES.saving, deps.now()))) {
      throw new JobLostError();
    }
    await deps.blobs.putJson(key, {
      ...artifactOf(deps, note, task, content),
      ...madeFrom(transcription),
      ...madeWith(instructions, deps.artifacts.followsInstructions),
    });
    return completeJob(deps, claimed, outputs);
  });
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

/**
 * Voices the script and stores the audio next to the artifact. The script keeps the speakers' labels
 * (shown with the names current when it is read); the audio cannot follow later renames, so it says
 * the names given by now.
 */
async function podcast(
  deps: ArtifactWorkerDeps,
  held: Job,
  task: ArtifactTask,
  script: PodcastScript,
  names: SpeakerNames | undefined,
  signal: AbortSignal,
): Promise<PodcastContent> {
  const voices = deps.voices.hostVoices(task.language);
  if (!voices) throw new GenerationFailedError(`${deps.voices.name} has no voices for '${task.language}'`);
  if (!(await deps.notes.updateJobStage(held, 'synthesizing', deps.now()))) throw new JobLostError();
  const hosts = PODCAST_HOSTS.map((id, index) => ({
    id,
    name: HOST_NAMES[index] ?? id,
    voice: voices[index] ?? voices[0],
  }));
  const voiceOf = new Map(hosts.map((host) => [host.id, host.voice]));
  return withScratchDir(deps.scratchRoot, 'notes-podcast-', async (workDir) => {
    const path = join(workDir, 'podcast.mp3');
    const { duration_ms } = await deps.voices.synthesize(
      script.lines.map((line) => ({
        voice: voiceOf.get(line.host) ?? voices[0],
        text: namedInText(line.text, names),
      })),
      path,
      signal,
    );
    signal.throwIfAborted();
    const { size } = await stat(path);
    await deps.blobs.putFile(objectKeys.podcastAudio(task.accountId, task.noteId), path, 'audio/mpeg');
    return { hosts, script: script.lines, audio: { content_type: 'audio/mpeg', duration_ms, bytes: size } };
  });
}

import { ARTIFACT_KINDS, type ArtifactKind } from './artifact-kinds.ts';
import type { DomainDeps } from './deps.ts';
import type { Job, JobKind } from './job.ts';

/**
 * Sends the queue message that makes a worker run `job`. Sending it twice is harmless (the worker's
 * claim lets one delivery work), so it is sent whenever a message may have been lost.
 */
export function requestJobRun(deps: DomainDeps, job: Job, language?: string): Promise<void> {
  const ids = { account_id: job.account_id, note_id: job.note_id };
  if (job.kind === 'transcription') return deps.queue.requestTranscription({ type: 'transcribe', ...ids });
  if (job.kind === 'insights') return deps.queue.requestGeneration({ type: 'insights', ...ids });
  const artifactLanguage = language ?? job.language;
  if (!artifactLanguage) throw new Error(`An ${job.kind} job needs its language to be queued`);
  return deps.queue.requestGeneration({
    type: 'artifact',
    ...ids,
    kind: artifactKindOf(job.kind),
    language: artifactLanguage,
  });
}

export function artifactKindOf(kind: JobKind): ArtifactKind {
  const artifactKind = kind.slice('artifact:'.length) as ArtifactKind;
  if (!ARTIFACT_KINDS.includes(artifactKind)) throw new Error(`${kind} is not an artifact job`);
  return artifactKind;
}

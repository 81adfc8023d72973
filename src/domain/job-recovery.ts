import { recordArrivedUpload } from './arrived-uploads.ts';
import type { DomainDeps } from './deps.ts';
import { GENERATION_STAGES, type Job, TRANSCRIPTION_STAGES } from './job.ts';
import { requestJobRun } from './job-requests.ts';
import { failJob, releaseJob } from './job-transitions.ts';
import { NO_TRANSCRIPTION, readTranscription } from './stored-results.ts';

/**
 * A job found in flight when a runtime starts belongs to a run that stopped or died: queued work
 * whose message was lost, or work a dead worker held. Each is sent to the queue again and completes
 * once (the claim and the fenced writes see to that). A run interrupted this many times fails
 * instead: it is likely what brings the runtime down. Only interruptions count (not retries after a
 * transient error, nor earlier runs the user requested again).
 */
export const MAX_INTERRUPTIONS = 5;

export type Resumed = 'requeued' | 'upload_found' | 'awaiting_upload' | 'failed' | 'changed';

export async function resumeJob(deps: DomainDeps, job: Job): Promise<Resumed> {
  if (job.status === 'processing') {
    const interruptions = (job.interruptions ?? 0) + 1;
    if (interruptions >= MAX_INTERRUPTIONS) {
      return giveUp(
        deps,
        job,
        `The work was interrupted ${interruptions} times and was given up. Request it again to retry.`,
      );
    }
    const stage = job.kind === 'transcription' ? TRANSCRIPTION_STAGES.queued : GENERATION_STAGES.queued;
    const queued = await releaseJob(deps, job, stage, { interruptions });
    if (!queued) return 'changed';
    await requestRun(deps, queued);
    return 'requeued';
  }
  if (job.kind === 'transcription' && job.stage === TRANSCRIPTION_STAGES.awaitingUpload) {
    // An upload that reached storage while the runtime stopped (its event was lost with the queue)
    // is taken as if the event had come.
    const arrived = await recordArrivedUpload(deps, job.account_id, job.note_id);
    return arrived === 'queued' ? 'upload_found' : 'awaiting_upload';
  }
  await requestRun(deps, job);
  return 'requeued';
}

/** Ends the job failed with `detail`, unless it changed since it was read (then left to what changed it). */
export async function giveUp(deps: DomainDeps, job: Job, detail: string): Promise<'failed' | 'changed'> {
  return (await failJob(deps, job.account_id, job.note_id, job.kind, detail, job)) === 'failed'
    ? 'failed'
    : 'changed';
}

/** Artifact jobs written before jobs recorded their language take the transcript's. */
async function requestRun(deps: DomainDeps, job: Job): Promise<void> {
  if (!job.kind.startsWith('artifact:') || job.language) return requestJobRun(deps, job);
  const transcription = await readTranscription(deps, job.account_id, job.note_id);
  if (transcription === 'unreadable') {
    await failJob(deps, job.account_id, job.note_id, job.kind, NO_TRANSCRIPTION);
    return;
  }
  return requestJobRun(deps, job, transcription.language);
}

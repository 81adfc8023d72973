import { stageLabel } from './format.ts';
import { timeLeft } from './time-left.ts';
import type { Job } from './types.ts';

/**
 * Where a transcription job really is, in words, with the time left when it can be worked out. The
 * service says `queued` moments after the recording is stored, and `awaiting_upload` only while it
 * has not arrived.
 */
export function jobStageLabel(job: Job & { created_at?: number }, now = Date.now()): string {
  if (job.stage === 'queued') return 'Queued for transcription';
  const label = stageLabel(job.stage, job.progress);
  const left = timeLeft(job, now);
  return left ? `${label}, about ${left} left` : label;
}

import { stageLabel } from './format.ts';
import { timeLeft } from './time-left.ts';
import type { Job } from './types.ts';
import { uploadFinished } from './uploads.ts';

/**
 * Where a job really is, in words, with the time left when it can be worked out: once this tab has
 * sent the recording, a job the service still reports as `awaiting_upload` is queued for
 * transcription (the storage event is a moment behind).
 */
export function jobStageLabel(job: Job & { created_at?: number }, now = Date.now()): string {
  if (job.stage === 'awaiting_upload' && uploadFinished(job.note_id)) return 'Queued for transcription';
  const label = stageLabel(job.stage, job.progress);
  const left = timeLeft(job, now);
  return left ? `${label}, about ${left} left` : label;
}

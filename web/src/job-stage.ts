import { stageLabel } from './format.ts';
import { roughly, timeLeft } from './time-left.ts';
import type { Job, JobWait } from './types.ts';

/**
 * Where a transcription job really is, in words, with the time left when it can be worked out. The
 * service says `queued` moments after the recording is stored, and `awaiting_upload` only while it
 * has not arrived.
 */
export function jobStageLabel(job: Job & { created_at?: number }, now = Date.now()): string {
  if (job.stage === 'queued') return 'Queued for transcription';
  if (job.stage === 'waiting') return waitingLabel(job.waiting, now);
  const label = stageLabel(job.stage, job.progress);
  const left = timeLeft(job, now);
  return left ? `${label}, about ${left} left` : label;
}

/** "Waiting: 1 recording ahead, about 2 minutes": what the service says it waits for, and how long. */
function waitingLabel(waiting: JobWait | undefined, now: number): string {
  const ahead = waiting?.recordings_ahead ?? 0;
  if (ahead === 0) return 'Waiting for a free recogniser';
  const who = `Waiting: ${ahead} ${ahead === 1 ? 'recording' : 'recordings'} ahead`;
  const startsAt = waiting?.estimated_start_at;
  if (startsAt === undefined) return who;
  return startsAt - now < 15_000 ? `${who}, starting any moment` : `${who}, about ${roughly(startsAt - now)}`;
}

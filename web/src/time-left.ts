/**
 * From the share done so far and the time it took: only once a tenth is done, so the first guess is
 * not wild. Counts from the job's creation, so it errs long (the queue's wait is included).
 */
export function timeLeft(job: { progress?: number; created_at?: number }, now: number): string | null {
  const { progress, created_at: started } = job;
  if (progress === undefined || started === undefined || progress < 0.1 || progress >= 1) return null;
  const remainingMs = ((now - started) * (1 - progress)) / progress;
  if (remainingMs < 60_000) return 'a minute';
  const minutes = Math.round(remainingMs / 60_000);
  return minutes < 60 ? `${minutes} minutes` : `${Math.round(minutes / 6) / 10} hours`;
}

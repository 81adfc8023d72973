/**
 * From the share done so far and the time it took: only once a tenth is done, so the first guess is
 * not wild. Counts from the job's creation, so it errs long (the queue's wait is included).
 */
export function timeLeft(job: { progress?: number; created_at?: number }, now: number): string | null {
  const { progress, created_at: started } = job;
  if (progress === undefined || started === undefined || progress < 0.1 || progress >= 1) return null;
  return roughly(((now - started) * (1 - progress)) / progress);
}

/** A stretch of time as a person says it about a wait: "a minute", "6 minutes", "1.5 hours". */
export function roughly(ms: number): string {
  // Under a minute and a half rounds to one minute: said once, as "a minute", never "1 minutes".
  if (ms < 90_000) return 'a minute';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(minutes / 6) / 10;
  return hours === 1 ? 'an hour' : `${hours} hours`;
}

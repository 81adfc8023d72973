import type { JobState } from '../types.ts';

const LABELS: Record<JobState, string> = {
  queued: 'Queued',
  processing: 'Transcribing',
  completed: 'Transcribed',
  failed: 'Failed',
};

/** `stage`, where known (a note's page): a recording waiting for a recogniser is not transcribing yet. */
export function StatusBadge({ status, stage }: { status: JobState | null; stage?: string | undefined }) {
  if (!status) return <span class="badge">No recording</span>;
  const label = status === 'processing' && stage === 'waiting' ? 'Waiting' : LABELS[status];
  return <span class={`badge ${status}`}>{label}</span>;
}

import type { JobState } from '../types.ts';

const LABELS: Record<JobState, string> = {
  queued: 'Queued',
  processing: 'Transcribing',
  completed: 'Transcribed',
  failed: 'Failed',
};

export function StatusBadge({ status }: { status: JobState | null }) {
  if (!status) return <span class="badge">No recording</span>;
  return <span class={`badge ${status}`}>{LABELS[status]}</span>;
}

/** `1:02:03` or `2:03`: how players show a position. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function when(epochMs: number): string {
  return dateFormat.format(new Date(epochMs));
}

const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long ago (or how soon), as a person says it: "just now", "5 minutes ago", "yesterday", "in 6
 * days"; a date past a month either way. `when` gives the exact moment.
 */
export function ago(epochMs: number, now = Date.now()): string {
  const past = now - epochMs;
  const size = Math.abs(past);
  if (size < MINUTE) return past >= 0 ? 'just now' : 'in a moment';
  if (size >= 30 * DAY) return `on ${dayFormat.format(new Date(epochMs))}`;
  const [unit, length]: [Intl.RelativeTimeFormatUnit, number] =
    size < HOUR ? ['minute', MINUTE] : size < DAY ? ['hour', HOUR] : ['day', DAY];
  return relativeFormat.format(-Math.trunc(past / length), unit);
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(0)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

const STAGES: Record<string, string> = {
  awaiting_upload: 'Waiting for the upload',
  queued: 'Queued',
  decoding: 'Reading the audio',
  waiting: 'Waiting for a free recogniser',
  recognizing: 'Transcribing',
  fetching_model: 'Fetching the speech model',
  generating: 'Writing',
  synthesizing: 'Recording the voices',
  saving: 'Saving',
  completed: 'Done',
  failed: 'Failed',
};

export function stageLabel(stage: string, progress?: number): string {
  const label = STAGES[stage] ?? stage;
  return progress !== undefined && progress > 0 && progress < 1
    ? `${label} (${Math.round(progress * 100)} %)`
    : label;
}

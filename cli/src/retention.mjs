// @ts-check
/**
 * Collections' retention periods as the CLI says them on stderr: when a note moves to the trash,
 * when a note the retention trashed is deleted for good, and `--retention-days`. The JSON on stdout
 * carries the same facts (`expiry`, `deletes_at`, `retention_days`) as epoch milliseconds.
 */
import { UsageError } from './errors.mjs';

/** The contract's bounds of `retention_days` (openapi.yaml, RetentionDays). */
export const RETENTION_DAYS = Object.freeze({ min: 1, max: 3650 });

/**
 * @typedef {object} RetentionNote the fields of a note (getNote, updateNote) read here
 * @property {string} note_id
 * @property {string} title
 * @property {'active' | 'trashed'} state
 * @property {number | null} [deletes_at]
 * @property {boolean} [protected]
 * @property {{ trash_at: number, name: string, retention_days: number } | null} [expiry]
 */

/**
 * `--retention-days N|none`: a whole number of days from 1 to 3650, `null` for `none` (the period
 * cleared), undefined when the option is absent.
 * @param {string | undefined} raw
 * @param {string} command
 * @returns {number | null | undefined}
 */
export function retentionDaysOption(raw, command) {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text.toLowerCase() === 'none') return null;
  const days = Number(text);
  if (!/^\d+$/.test(text) || days < RETENTION_DAYS.min || days > RETENTION_DAYS.max) {
    throw new UsageError(
      `--retention-days must be a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or none, not '${raw}'`,
      command,
    );
  }
  return days;
}

/**
 * @param {number} days
 * @returns {string} `1 day`, `30 days`
 */
export function daysText(days) {
  return `${days} day${days === 1 ? '' : 's'}`;
}

/**
 * A moment in this machine's time zone, to the minute: `on 2027-01-05 at 14:30`; a moment already
 * past reads `within the hour` (the retention runs hourly and does it at its next run).
 * @param {number} epochMs
 * @param {number} [now]
 * @returns {string}
 */
export function whenText(epochMs, now = Date.now()) {
  if (epochMs <= now) return 'within the hour';
  const at = new Date(epochMs);
  const two = (/** @type {number} */ value) => String(value).padStart(2, '0');
  const day = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
  return `on ${day} at ${two(at.getHours())}:${two(at.getMinutes())}`;
}

/**
 * The collection whose period moves the note: `(Stand-ups keeps notes 30 days)`.
 * @param {{ name: string, retention_days: number }} expiry
 * @returns {string}
 */
function periodText(expiry) {
  return `(${expiry.name} keeps notes ${daysText(expiry.retention_days)})`;
}

/**
 * What the retention will do to the note, one sentence a line; none when nothing.
 * @param {RetentionNote} note
 * @returns {string[]}
 */
export function retentionLines(note) {
  /** @type {string[]} */
  const lines = [];
  if (note.state === 'trashed' && typeof note.deletes_at === 'number') {
    lines.push(
      `Deleted for good ${whenText(note.deletes_at)} unless restored ('notes notes restore ${note.note_id}').`,
    );
  }
  if (note.expiry) {
    lines.push(`Moves to the trash ${whenText(note.expiry.trash_at)} ${periodText(note.expiry)}.`);
  } else if (note.protected && note.state === 'active') {
    lines.push('Kept: it does not move to the trash for its age.');
  }
  return lines;
}

/**
 * What `notes notes protect` or `unprotect` did, then what happens to the note now.
 * @param {RetentionNote} note the note as updated
 * @returns {string[]}
 */
export function protectionLines(note) {
  const trashedLines = () =>
    note.state === 'trashed'
      ? [
          `It is in the trash${typeof note.deletes_at === 'number' ? '' : ' until a person deletes or restores it'}.`,
          ...retentionLines(note),
        ]
      : [];
  if (note.protected) {
    return [`Kept: ${note.title} will not move to the trash for its age.`, ...trashedLines()];
  }
  if (note.state === 'trashed') {
    return [
      `No longer kept: once restored, ${note.title} follows its collections' retention periods again.`,
      ...trashedLines(),
    ];
  }
  if (note.expiry) {
    return [
      `No longer kept: moves to the trash ${whenText(note.expiry.trash_at)} ${periodText(note.expiry)}.`,
    ];
  }
  return [
    `No longer kept: none of the collections ${note.title} is in has a retention period, so it stays until a person trashes it.`,
  ];
}

import { when } from './format.ts';
import type { NoteEvent } from './types.ts';

/**
 * A collection's retention period and a note's expiry, in the words a person reads them: periods as
 * said ("30 days", "1 year"), dates as the app writes them everywhere (`when`), and a time already
 * past as "within the hour" (the retention runs hourly, so that is when it happens).
 */

/** The periods offered first; any other whole number of days from 1 to 3650 can be typed. */
export const RETENTION_PRESETS: readonly number[] = [7, 30, 90, 365];

const YEAR_DAYS = 365;

/** "1 day", "30 days", "1 year", "2 years" (whole years only; 400 days stays "400 days"). */
export function periodWords(days: number): string {
  if (days % YEAR_DAYS === 0) {
    const years = days / YEAR_DAYS;
    return years === 1 ? '1 year' : `${years} years`;
  }
  return days === 1 ? '1 day' : `${days.toLocaleString('en')} days`;
}

/**
 * What a collection's period does to its notes, in sentences; `trashDays`: the service's trash period
 * (the app's configuration, `trash_days`); `changing`: said before it is saved.
 */
export function retentionEffect(
  name: string,
  days: number | null,
  trashDays: number,
  changing = false,
): string[] {
  if (days === null) {
    return [
      `Notes in “${name}” stay until you move them to the trash.`,
      // The deletion of a note already trashed by the period is the note's own (deletes_at): it stays.
      ...(changing
        ? ['Notes its period already moved to the trash are still deleted on their day unless restored.']
        : []),
    ];
  }
  const period = periodWords(days);
  const inTrash = trashDays === 1 ? '1 more day' : `${trashDays.toLocaleString('en')} more days`;
  return [
    `Notes in “${name}” move to the trash ${period} after they were recorded (or restored from the trash), unless you keep them with “Keep this note” on their page.`,
    ...(changing ? [olderNotesWords(days)] : []),
    `The trash keeps them ${inTrash}, then deletes them for good unless they are restored.`,
  ];
}

/** Said before a period is saved: what it does at once. */
export function olderNotesWords(days: number): string {
  return `Notes already older than ${periodWords(days)} move within the hour.`;
}

/** "Moves to the trash on …": the date, or within the hour once it is past (the next hourly run). */
export function trashMomentWords(trashAt: number, now = Date.now()): string {
  return trashAt <= now ? 'within the hour' : `on ${when(trashAt)}`;
}

/** "Deleted for good on … unless restored" for a note the retention moved to the trash. */
export function deletionWords(deletesAt: number, now = Date.now()): string {
  return deletesAt <= now
    ? 'Deleted for good within the hour unless restored'
    : `Deleted for good on ${when(deletesAt)} unless restored`;
}

/**
 * One entry of a note's history: "Moved to the trash by the retention of “Stand-ups” on …; will be
 * deleted for good on …", "Restored by you on …", "Kept by you on …". `pending`: the note is still in
 * the trash from this move, so the deletion it announced is still to come.
 */
export function historyWords(event: NoteEvent, pending: boolean): string {
  const by =
    event.by === 'retention' ? `by the retention of “${event.collection?.name ?? 'a collection'}”` : 'by you';
  const what: Record<NoteEvent['event'], string> = {
    trashed: `Moved to the trash ${by}`,
    restored: `Restored ${by}`,
    protected: `Kept ${by}`,
    unprotected: `Keep turned off ${by}`,
  };
  const said = `${what[event.event] ?? event.event} on ${when(event.at)}`;
  return pending && event.deletes_at !== undefined
    ? `${said}; will be deleted for good on ${when(event.deletes_at)}`
    : said;
}

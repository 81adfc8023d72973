import type { DomainDeps } from '../domain/deps.ts';
import { applyRetention } from '../domain/retention.ts';

/** As often as the AWS schedule runs it (lib/constructs/workers.ts, RETENTION_EVERY). */
export const RETENTION_EVERY_MS = 60 * 60 * 1000;

/**
 * The local runtime's retention: the same pass as functions/applyRetention.ts, once at start and then
 * hourly. A pass still running when the next is due is not doubled; stop() waits for it.
 */
export function startRetentionTimer(
  deps: () => DomainDeps,
  trashDays: number,
  log: (line: string) => void,
): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= applyRetention(deps(), {
      trashDays,
      onError: (noteId, error) =>
        log(
          `Retention could not handle note ${noteId} (${error instanceof Error ? error.name : 'error'}); the next pass tries again`,
        ),
    })
      .then(({ trashed, deleted }) => {
        if (trashed + deleted > 0) {
          log(
            `Retention: ${trashed} note(s) moved to the trash, ${deleted} deleted for good after the trash period`,
          );
        }
      })
      .catch((error: unknown) =>
        log(
          `Retention pass failed (${error instanceof Error ? error.name : 'error'}); the next one tries again`,
        ),
      )
      .finally(() => {
        running = null;
      });
  };
  run();
  const timer = setInterval(run, RETENTION_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

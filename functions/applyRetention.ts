import middy from '@middy/core';
import { loadConfig } from '#src/config.ts';
import { applyRetention } from '#src/domain/retention.ts';
import { logger } from '#src/logging.ts';
import { observed } from '#src/observability.ts';
import { getServices } from '#src/wiring/services.ts';

/**
 * Collections' retention periods on AWS, on an hourly schedule (EventBridge); the local runtime runs
 * the same pass on its own timer (src/local/retention-timer.ts). A note that could not be handled
 * fails the invocation after the others are done, so the error alarm of background functions sees
 * it; the next run tries it again.
 */
export const handler = middy<unknown, void>()
  .use(observed())
  .handler(async () => {
    const pass = await applyRetention(getServices(), {
      trashDays: loadConfig().NOTES_TRASH_DAYS,
      onError: (noteId, error) =>
        logger.error('could not apply retention to a note', {
          noteId,
          error: error instanceof Error ? error.name : 'error',
        }),
    });
    logger.info('applied retention', { ...pass });
    if (pass.errors > 0)
      throw new Error(`${pass.errors} note(s) could not be handled; the next run tries again`);
  });

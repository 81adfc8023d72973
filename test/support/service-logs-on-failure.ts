import { afterEach } from 'vitest';
import { keptServiceLogs } from './service-logs.ts';

/**
 * `npm test` is quiet while tests pass (vitest.config.ts: silent 'passed-only'), and the services a
 * test file starts keep their logs to themselves (test/support/service-logs.ts). When a test fails,
 * the last lines each running service printed are shown with it.
 */
const SHOWN_LINES = 80;

afterEach((context) => {
  if (context.task.result?.state !== 'fail') return;
  for (const { label, output } of keptServiceLogs()) {
    const lines = output().trimEnd().split('\n');
    console.error(
      `--- ${label}: its last ${Math.min(lines.length, SHOWN_LINES)} of ${lines.length} lines ---\n${lines.slice(-SHOWN_LINES).join('\n')}`,
    );
  }
});

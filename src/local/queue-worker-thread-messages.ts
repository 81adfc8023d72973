/** What the API's thread and the queue workers' thread (src/local/queue-worker-thread.ts) say to each other. */
import type { ThreadStartFailed } from './thread-start-failure.ts';

export type ToQueueWorkerThread =
  /** Stop polling and let the running work finish; answered by `stopped`. */
  | { type: 'stop' }
  /** The drain time is over: abort the running work (it goes back to the queue). */
  | { type: 'stop-running-work' };

export type FromQueueWorkerThread =
  | { type: 'log'; line: string }
  /** The event sources poll; `threadId` is the thread the handlers run on. */
  | { type: 'started'; threadId: number }
  | ThreadStartFailed
  /** Every batch being handled has settled; the thread may be ended. */
  | { type: 'stopped' };

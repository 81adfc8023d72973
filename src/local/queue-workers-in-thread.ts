/**
 * Starts the queue workers in their own worker thread (src/local/queue-worker-thread.ts), at nice 10,
 * and hands back the same `QueueWorkers` as in-process ones: stop() drains there, stopRunningWork()
 * aborts the work there (its abort signal lives in that thread). The thread shares this process's
 * environment, so handlers read their settings as they did on the API's thread. Messages:
 * src/local/queue-worker-thread-messages.ts.
 *
 * A thread that ends while it should be working is a failure of the service, as an uncaught error in
 * a handler was when they ran on the API's thread: `onFailure` is told (the runtime ends the process,
 * and the next start queues the interrupted work again, as after a kill -9). Restarting the thread
 * here instead would leave the work it held invisible on its queue until the visibility timeout.
 */
import { startThread, threadEntry } from '../adapters/speech/threads/thread-entry.ts';
import { errorLine } from './error-line.ts';
import type { FromQueueWorkerThread, ToQueueWorkerThread } from './queue-worker-thread-messages.ts';
import type { QueueWorkerSettings, QueueWorkers } from './queue-workers.ts';
import { startFailure } from './thread-start-failure.ts';

export interface QueueWorkersThreadOptions {
  log: (line: string) => void;
  /** The thread ended (or failed) while it should have been working. */
  onFailure: (error: Error) => void;
  /** The thread's entry; tests give one that fails. */
  entry?: URL;
}

export interface QueueWorkersInThread extends QueueWorkers {
  /** The thread the handlers run on (`threadId` of node:worker_threads). */
  threadId: number;
}

export function startQueueWorkersInThread(
  settings: QueueWorkerSettings,
  { log, onFailure, entry = threadEntry(import.meta.url, 'queue-worker-thread') }: QueueWorkersThreadOptions,
): Promise<QueueWorkersInThread> {
  // Handlers read settings such as NOTES_PUBLIC_URL or NOTES_MIN_FREE_DISK_MB when they use them.
  // Split: each handler (and the packages it imports) loads when it is first called, as before.
  const thread = startThread(entry, {
    workerData: settings,
    shareEnv: true,
    packagesExternal: true,
    splitting: true,
  });
  const send = (message: ToQueueWorkerThread) => thread.postMessage(message);
  const ended = new Promise<number>((resolve) => thread.once('exit', resolve));
  let stopped: (() => void) | undefined;
  let stopping: Promise<void> | undefined;
  let lastError: Error | undefined;

  return new Promise<QueueWorkersInThread>((resolve, reject) => {
    let started = false;
    thread.on('message', (message: FromQueueWorkerThread) => {
      switch (message.type) {
        case 'log':
          log(message.line);
          return;
        case 'failed':
          reject(startFailure(message));
          return;
        case 'started':
          started = true;
          resolve({
            threadId: message.threadId,
            stop: () => {
              stopping ??= stopThread();
              return stopping;
            },
            stopRunningWork: () => {
              if (thread.threadId !== -1) send({ type: 'stop-running-work' });
            },
          });
          return;
        case 'stopped':
          stopped?.();
          return;
      }
    });
    thread.on('error', (error) => {
      lastError = error;
    });
    void ended.then((code) => {
      const why = `queue workers: their thread ended (code ${code})${lastError ? `: ${errorLine(lastError)}` : ''}`;
      if (!started) {
        reject(lastError ?? new Error(`${why} before they started`));
      } else if (!stopping) {
        log(`${why}; no queued work is taken until the service starts again`);
        onFailure(lastError ?? new Error(why));
      } else if (lastError) {
        // Died while draining: the stop completes, and the next start queues its work again.
        log(`${why} while stopping; its running work is queued again at the next start`);
      }
      stopped?.();
    });
  });

  /** Asks the thread to let its running work settle, then ends it. */
  async function stopThread(): Promise<void> {
    if (thread.threadId === -1) return;
    const settled = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    send({ type: 'stop' });
    await settled;
    // Nothing runs there any more; SDK clients' idle sockets need not hold it open.
    await thread.terminate();
  }
}

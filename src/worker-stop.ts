/**
 * The signal that tells running work the runtime is stopping. Only the local runtime raises it, when
 * its drain deadline passes (on Lambda, SQS redelivers the work of a stopped function instead). Work
 * started after a stop gets a fresh signal, so several runtimes can start and stop in one process.
 */
let controller = new AbortController();

export function workerStopSignal(): AbortSignal {
  return controller.signal;
}

/** Aborts the work in progress: each job goes back to `queued` and its message stays on the queue. */
export function stopRunningWork(): void {
  controller.abort(new Error('The runtime is stopping'));
  controller = new AbortController();
}

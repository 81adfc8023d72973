/**
 * How the local runtime's own threads (the emulators', the queue workers') report a start that failed:
 * an Error cannot cross postMessage with its name, so it crosses as this message and is made again.
 */
export interface ThreadStartFailed {
  type: 'failed';
  message: string;
  name: string;
}

/** In the thread: the message for `error`. */
export function startFailed(error: unknown): ThreadStartFailed {
  return {
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
    name: error instanceof Error ? error.name : 'Error',
  };
}

/** On the runtime's side: the error the thread met, with its name. */
export function startFailure({ message, name }: ThreadStartFailed): Error {
  return Object.assign(new Error(message), { name });
}

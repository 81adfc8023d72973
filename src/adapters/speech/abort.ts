/**
 * The error an engine rejects with once its caller aborted: always named `AbortError`, so callers can
 * tell a cancellation from a failure whatever reason the signal was aborted with (the reason itself
 * when it already is one, else kept as the cause, e.g. a `TimeoutError`).
 */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', { name: 'AbortError', cause: reason });
}

/** Throws `abortError(signal)` when `signal` is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** Whether `error` is a cancellation (by our signal or by an API that names its errors the same way). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Messages of a stream job between the main thread and a pool thread: `start`, then data chunks (each
 * acknowledged once consumed, for flow control), then `end`; the thread answers with one `result` or
 * `error`. One job at a time per thread.
 */
export type ToThread =
  | { type: 'start'; init: unknown }
  | { type: 'chunk'; data: ArrayBuffer }
  | { type: 'end' };

export type FromThread =
  | { type: 'ack' }
  | { type: 'result'; value: unknown }
  | { type: 'error'; name: string; message: string };

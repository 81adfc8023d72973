import { parentPort } from 'node:worker_threads';
import type { FromThread, ToThread } from './protocol.ts';

/** What a thread does with one job: takes the chunks in order, then gives one (cloneable) result. */
export interface StreamConsumer {
  push(chunk: Buffer): void;
  finish(): unknown;
}

/**
 * The thread side of `StreamThreadPool`: call it once from a thread entry with a factory that opens a
 * consumer for a job's `init`. Errors go back to the job as messages; the thread stays usable.
 */
export function serveStreamJobs(open: (init: unknown) => StreamConsumer): void {
  const port = parentPort;
  if (!port) throw new Error('serveStreamJobs must run in a worker thread');
  const reply = (message: FromThread) => port.postMessage(message);
  let consumer: StreamConsumer | undefined;
  port.on('message', (message: ToThread) => {
    try {
      if (message.type === 'start') {
        consumer = open(message.init);
        return;
      }
      if (!consumer) throw new Error(`"${message.type}" before "start"`);
      if (message.type === 'chunk') {
        consumer.push(Buffer.from(message.data));
        reply({ type: 'ack' });
      } else {
        const value = consumer.finish();
        consumer = undefined;
        reply({ type: 'result', value });
      }
    } catch (error) {
      consumer = undefined;
      const { name, message: text } = error instanceof Error ? error : new Error(String(error));
      reply({ type: 'error', name, message: text });
    }
  });
}

/**
 * Starts the emulators in their own worker thread (src/local/emulator-thread.ts) and hands back the
 * same `Emulators` as in-process ones. On the API's event loop, API requests waited behind the
 * emulators' LevelDB reads and XML work (issue 24: the cheapest call at p50 312 ms / p99 1,470 ms
 * under modest mixed traffic); docs/benchmarks.md has the figures before and after. A thread ends
 * with its process, so a `kill -9` of the service leaves no emulator holding the database lock or a
 * port (a child process could outlive it). Messages: src/local/emulator-thread-messages.ts.
 */
import type { Worker } from 'node:worker_threads';
import { startThread, threadEntry } from '../adapters/speech/threads/thread-entry.ts';
import type {
  EmulatorThreadOptions,
  FromEmulatorThread,
  ToEmulatorThread,
} from './emulator-thread-messages.ts';
import type { EmulatorOptions, Emulators } from './emulators.ts';
import { errorLine } from './error-line.ts';
import { startFailure } from './thread-start-failure.ts';

/** How long a stopped thread may take to end by itself before it is terminated. */
const EXIT_GRACE_MS = 5_000;

export function startEmulatorsInThread(options: EmulatorOptions): Promise<Emulators> {
  const { log = (line: string) => console.error(line), openStagingFile: _, inProcess: __, ...data } = options;
  const threadOptions: EmulatorThreadOptions = data;
  performance.mark('emulators:thread-starting');
  const thread = startThread(threadEntry(import.meta.url, 'emulator-thread'), {
    workerData: threadOptions,
    // The emulators read settings such as NOTES_MIN_FREE_DISK_MB when they use them, as before.
    shareEnv: true,
    // dynalite's LevelDB is a native module, and database-faults.ts patches dynalite's own `level`.
    packagesExternal: true,
  });
  const send = (message: ToEmulatorThread) => thread.postMessage(message);
  const replies = new Map<FromEmulatorThread['type'], Array<() => void>>();
  const awaitReply = (type: 'service-origin-allowed' | 'stopped') =>
    new Promise<void>((resolve) => replies.set(type, [...(replies.get(type) ?? []), resolve]));

  return new Promise<Emulators>((resolve, reject) => {
    let started = false;
    let stopping: Promise<void> | undefined;
    thread.on('message', (message: FromEmulatorThread) => {
      switch (message.type) {
        case 'log':
          log(message.line);
          return;
        case 'failed':
          reject(startFailure(message));
          return;
        case 'started':
          started = true;
          // Placed among this thread's own marks, for the start-up trace (bin/local-server.ts).
          for (const { name, at } of message.marks) {
            performance.mark(name, { startTime: at - performance.timeOrigin });
          }
          resolve({
            ...message.emulators,
            storageCors: {
              allowServiceOrigin: (apiUrl) => {
                const allowed = awaitReply('service-origin-allowed');
                send({ type: 'allow-service-origin', apiUrl });
                return allowed;
              },
            },
            stop: () => {
              stopping ??= stopThread(thread, awaitReply('stopped'), () => send({ type: 'stop' }));
              return stopping;
            },
          });
          return;
        default:
          replies.get(message.type)?.shift()?.();
      }
    });
    thread.on('error', (error) => {
      if (!started) {
        reject(error);
        return;
      }
      // As when they ran in this process: the service cannot go on without its stand-ins.
      log(`local emulators: their thread failed: ${errorLine(error)}`);
      throw error;
    });
    thread.on('exit', (code) => {
      if (!started) {
        reject(new Error(`local emulators: their thread ended (code ${code}) before they started`));
        return;
      }
      // Whoever waits for an answer the thread can no longer give is answered now.
      for (const waiting of replies.values()) for (const answer of waiting.splice(0)) answer();
    });
  });
}

/** Asks the thread to stop its servers and close the database, then waits for it to end. */
async function stopThread(thread: Worker, stopped: Promise<void>, requestStop: () => void): Promise<void> {
  if (thread.threadId === -1) return; // ended already: nothing holds a port or the database
  const ended = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  requestStop();
  // A thread that ended meanwhile (or fails to stop cleanly) never says "stopped".
  await Promise.race([stopped, ended]);
  const overdue = setTimeout(() => void thread.terminate(), EXIT_GRACE_MS);
  await ended;
  clearTimeout(overdue);
}

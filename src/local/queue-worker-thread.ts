/**
 * The queue workers' own thread (started by src/local/queue-workers-in-thread.ts): the event sources
 * and every handler they call run here, at a lower priority than the API's thread, so the handlers'
 * SDK calls and signing, transcript JSON, the speech-presence check and the spawns of ffmpeg and
 * pocketsphinx never hold up an API request on its event loop (issue 23: getNote p99 while
 * transcribing was 8.9x idle with them on it). Log lines go back to the runtime's log as messages.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../adapters/speech/background-priority.ts';
import type { FromQueueWorkerThread, ToQueueWorkerThread } from './queue-worker-thread-messages.ts';
import { type QueueWorkerSettings, startQueueWorkersHere } from './queue-workers.ts';
import { startFailed } from './thread-start-failure.ts';

const port = parentPort;
if (!port) throw new Error('queue-worker-thread.ts runs as a worker thread only');
const send = (message: FromQueueWorkerThread) => port.postMessage(message);

// On Linux a nice value is the thread's own: the API's thread keeps its priority. Threads this one
// starts (the diarizer's) and programs it spawns start from this value.
await lowerThisThread();

try {
  const workers = await startQueueWorkersHere(workerData as QueueWorkerSettings, (line) =>
    send({ type: 'log', line }),
  );
  port.on('message', (message: ToQueueWorkerThread) => {
    if (message.type === 'stop-running-work') {
      // The work's abort signal (src/worker-stop.ts) is this thread's: only here can it be raised.
      workers.stopRunningWork();
      return;
    }
    void workers.stop().then(() => send({ type: 'stopped' }));
  });
  send({ type: 'started', threadId });
} catch (error) {
  send(startFailed(error));
  port.close();
}

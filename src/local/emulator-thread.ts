/**
 * The emulators' own thread (started by src/local/emulators-in-thread.ts): dynalite, the storage
 * front with s3rver and the SQS emulator answer here, so their CPU time (LevelDB, XML, signature
 * checks) never holds up the API's event loop. Commands come as messages; log lines go back as
 * messages, to the runtime's log.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type {
  EmulatorThreadOptions,
  FromEmulatorThread,
  ToEmulatorThread,
} from './emulator-thread-messages.ts';
import { startEmulatorsHere } from './emulators.ts';
import { startFailed } from './thread-start-failure.ts';

performance.mark('emulators:thread-modules-imported');
const port = parentPort;
if (!port) throw new Error('emulator-thread.ts runs as a worker thread only');
const send = (message: FromEmulatorThread) => port.postMessage(message);

const options = workerData as EmulatorThreadOptions;
try {
  const { storageCors, stop, ...emulators } = await startEmulatorsHere({
    ...options,
    log: (line) => send({ type: 'log', line }),
  });
  port.on('message', (message: ToEmulatorThread) => {
    if (message.type === 'allow-service-origin') {
      void storageCors
        .allowServiceOrigin(message.apiUrl)
        .then(() => send({ type: 'service-origin-allowed' }));
    } else {
      // Once stopped, nothing holds the thread: it ends by itself.
      void stop()
        .catch((error: unknown) =>
          send({
            type: 'log',
            line: `local emulators: stopping failed: ${error instanceof Error ? error.message : String(error)}`,
          }),
        )
        .then(() => {
          send({ type: 'stopped' });
          port.close();
        });
    }
  });
  const marks = performance
    .getEntriesByType('mark')
    .map(({ name, startTime }) => ({ name, at: performance.timeOrigin + startTime }));
  send({ type: 'started', emulators, marks });
} catch (error) {
  // startEmulatorsHere has undone what it started (ports, the database lock).
  send(startFailed(error));
  port.close();
}

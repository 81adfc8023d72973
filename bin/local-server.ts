/**
 * `npm start`: runs the whole service on this machine (see src/local/runtime.ts).
 * PORT (default 8787), NOTES_STORAGE_PORT (default PORT + 1), NOTES_DATA_DIR (default ./.notes-data),
 * NOTES_DRAIN_SECONDS (default 10): on SIGTERM or Ctrl-C, how long running work may finish before it
 * is returned to the queue (it resumes on the next start). A second signal stops at once.
 * NOTES_STORAGE_CORS_ORIGINS (browser origins besides the API's own that may use the object store).
 * NOTES_LISTEN_HOST (default 127.0.0.1; 0.0.0.0 in the container image), NOTES_PUBLIC_URL and
 * NOTES_STORAGE_PUBLIC_URL (the API's and the object store's origins as clients reach them, when not the
 * listening address): src/local/public-addresses.ts.
 * NOTES_TRANSCRIPTION_CONCURRENCY (transcriptions at once; default two per core, as memory allows).
 * NOTES_START_TRACE=<file>: once started, writes there when each start-up phase ended (performance
 * marks, in ms since the process began, and when it began) for `npm run bench -- start`.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

performance.mark('server:entry');

// The AWS SDK's warning about Node's version, once for every thread of the service.
const { sdkNodeNoticeOnce } = await import('../src/local/sdk-node-notice.ts');
const sdkNotice = sdkNodeNoticeOnce(process.env);
if (sdkNotice) console.error(sdkNotice);

// Metrics go to CloudWatch on AWS; locally they would only be noise on stdout. Set before the
// runtime's modules load, since the metrics client reads it when it is created.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const port = Number(process.env.PORT ?? 8787);
const storagePort = Number(process.env.NOTES_STORAGE_PORT ?? (port === 0 ? 0 : port + 1));
const dataDir = resolve(process.env.NOTES_DATA_DIR ?? '.notes-data');
const drainSeconds = Number(process.env.NOTES_DRAIN_SECONDS ?? 10);

// The emulators' thread starts first, from two small modules: it loads its packages and opens the
// database while this thread imports the runtime's modules below (the longest two steps of a start).
const { parseCorsOrigins } = await import('../src/local/storage/cors.ts');
const { startRuntimeEmulators } = await import('../src/local/runtime-emulators.ts');
const { isStartUpProblem } = await import('../src/local/start-up-problem.ts');
const { publicAddressesFromEnv } = await import('../src/local/public-addresses.ts');
const addresses = (() => {
  try {
    return publicAddressesFromEnv(process.env);
  } catch (error) {
    if (!isStartUpProblem(error)) throw error;
    console.error(`Cannot start the notes service: ${(error as Error).message}`);
    process.exit(1);
  }
})();
const options = {
  dataDir,
  port,
  storagePort,
  host: addresses.listenHost,
  ...(addresses.publicUrl ? { publicUrl: addresses.publicUrl } : {}),
  ...(addresses.storagePublicUrl ? { storagePublicUrl: addresses.storagePublicUrl } : {}),
  storageCorsOrigins: parseCorsOrigins(process.env.NOTES_STORAGE_CORS_ORIGINS),
  ...(process.env.NOTES_VISIBILITY_TIMEOUT_SECONDS
    ? { visibilityTimeoutSeconds: Number(process.env.NOTES_VISIBILITY_TIMEOUT_SECONDS) }
    : {}),
  ...(process.env.NOTES_MAX_RECEIVE_COUNT
    ? { maxReceiveCount: Number(process.env.NOTES_MAX_RECEIVE_COUNT) }
    : {}),
  drainSeconds,
};
const emulators = startRuntimeEmulators(options);
// Awaited by the runtime, which reports a failure; if an import below fails first, the process ends.
emulators.catch(() => undefined);

const { API_KEY_FILE } = await import('../src/local/local-account.ts');
const { startLocalRuntime } = await import('../src/local/runtime.ts');
const { startBanner } = await import('../src/local/start-banner.ts');
performance.mark('server:modules-imported');

const runtime = await startLocalRuntime({ ...options, emulators }).catch((error: unknown) => {
  // A problem the user can fix is said in its sentence; anything else keeps its stack trace.
  if (!isStartUpProblem(error)) throw error;
  console.error(`Cannot start the notes service: ${error.message}`);
  process.exit(1);
});

const keyFile = join(dataDir, API_KEY_FILE);
console.error(
  startBanner({
    apiUrl: runtime.apiUrl,
    storageUrl: runtime.storageUrl,
    dataDir,
    keyFile,
    newApiKey: runtime.newApiKey,
    transcribing: runtime.info.transcription_concurrency,
    speech: runtime.speech.banner(),
    speakers: runtime.voices.banner(),
  }),
);
if (process.env.NOTES_START_TRACE) {
  const marks = performance
    .getEntriesByType('mark')
    .map(({ name, startTime }) => ({ name, at_ms: startTime }));
  writeFileSync(
    process.env.NOTES_START_TRACE,
    JSON.stringify({ time_origin: performance.timeOrigin, marks }),
  );
}

/** Past the drain, stopping the stand-ins takes a moment; if anything hangs, exit regardless. */
const EXIT_GRACE_MS = 5_000;

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      console.error('Stopping now.');
      process.exit(1);
    }
    stopping = true;
    console.error(`Stopping: running work has ${drainSeconds} s to finish (Ctrl-C again to stop now)…`);
    setTimeout(
      () => {
        console.error('Shutdown did not finish in time; exiting.');
        process.exit(1);
      },
      drainSeconds * 1000 + EXIT_GRACE_MS,
    ).unref();
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

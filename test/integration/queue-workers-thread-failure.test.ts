import { describe, expect, it } from 'vitest';
import type { QueueWorkerSettings } from '../../src/local/queue-workers.ts';
import { startQueueWorkersInThread } from '../../src/local/queue-workers-in-thread.ts';

/** The fixtures never reach a queue: settings only need to cross to the thread. */
const settings: QueueWorkerSettings = {
  sqsEndpoint: 'http://127.0.0.1:9',
  credentials: { accessKeyId: 'unused', secretAccessKey: 'unused' },
  queueUrls: {} as QueueWorkerSettings['queueUrls'],
  queueArns: {} as QueueWorkerSettings['queueArns'],
  transcriptionConcurrency: 1,
};

function fixture(name: string): URL {
  return new URL(`../fixtures/threads/${name}.ts`, import.meta.url);
}

describe("the queue workers' thread", () => {
  it('fails the start with the error of a thread whose modules cannot load', async () => {
    await expect(
      startQueueWorkersInThread(settings, {
        log: () => undefined,
        onFailure: () => undefined,
        entry: fixture('queue-worker-thread-that-cannot-load'),
      }),
    ).rejects.toThrow('the handlers could not be loaded');
  });

  it('says so in the log and reports the failure when the thread dies while working', async () => {
    const lines: string[] = [];
    let reportFailure: (error: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => {
      reportFailure = resolve;
    });
    const workers = await startQueueWorkersInThread(settings, {
      log: (line) => lines.push(line),
      onFailure: (error) => reportFailure(error),
      entry: fixture('queue-worker-thread-that-fails'),
    });
    workers.stopRunningWork();
    const error = await failed;
    expect(error.message).toBe('a handler failed outside its promise');
    expect(lines).toEqual([
      'queue workers: their thread ended (code 1): Error: a handler failed outside its promise; no queued work is taken until the service starts again',
    ]);
  });

  it('reports no failure when it ends because the runtime stops it', async () => {
    const failures: Error[] = [];
    const workers = await startQueueWorkersInThread(settings, {
      log: () => undefined,
      onFailure: (error) => failures.push(error),
      entry: fixture('queue-worker-thread-that-fails'),
    });
    expect(workers.threadId).toBeGreaterThan(0);
    await workers.stop();
    // Once stopped the thread is gone: asking it to stop work reaches nothing and fails nothing.
    workers.stopRunningWork();
    expect(failures).toEqual([]);
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamThreadPool } from '../../src/adapters/speech/threads/stream-thread-pool.ts';
import type { CountingJob } from '../support/counting-thread.ts';
import { waitUntil } from '../support/wait.ts';

const ENTRY = new URL('../support/counting-thread.ts', import.meta.url);
let pools: StreamThreadPool[] = [];

function pool(size: number, idleMs?: number): StreamThreadPool {
  const created = new StreamThreadPool(ENTRY, { size, maxChunksInFlight: 2, ...(idleMs ? { idleMs } : {}) });
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

/** `count` chunks of `size` bytes with values 0..255, optionally a pause before each. */
async function* chunks(count: number, size: number, pauseMs = 0): AsyncIterable<Uint8Array> {
  for (let i = 0; i < count; i++) {
    if (pauseMs > 0) await sleep(pauseMs);
    yield Uint8Array.from({ length: size }, (_, j) => (i + j) % 256);
  }
}

function expectedSum(count: number, size: number): number {
  let sum = 0;
  for (let i = 0; i < count; i++) for (let j = 0; j < size; j++) sum = (sum + ((i + j) % 256)) % 65_521;
  return sum;
}

type Counted = { bytes: number; sum: number; threadId: number };

describe('StreamThreadPool', () => {
  it('runs a job in a worker thread over every chunk, in order, and returns its result', async () => {
    const result = await pool(1).run<Counted>({} satisfies CountingJob, chunks(40, 1000));
    expect(result.bytes).toBe(40_000);
    expect(result.sum).toBe(expectedSum(40, 1000));
    expect(result.threadId).toBeGreaterThan(0); // 0 is the main thread
  });

  it('never runs more threads than its size; the other jobs wait their turn and all complete', async () => {
    const threads = pool(2);
    let most = 0;
    const watch = setInterval(() => {
      most = Math.max(most, threads.threads);
    }, 5);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => threads.run<Counted>({}, chunks(10, 500, 10))),
    );
    clearInterval(watch);
    expect(results.map((r) => r.bytes)).toEqual([5000, 5000, 5000, 5000, 5000]);
    expect(most).toBeLessThanOrEqual(2);
    expect(new Set(results.map((r) => r.threadId)).size).toBeLessThanOrEqual(2); // threads are reused
  });

  it('ends a thread stuck in a computation when its job is aborted, and rejects with AbortError', async () => {
    const threads = pool(1);
    const controller = new AbortController();
    let sent!: () => void;
    const allSent = new Promise<void>((resolve) => (sent = resolve));
    async function* input(): AsyncIterable<Uint8Array> {
      yield* chunks(4, 100);
      sent(); // with 2 chunks in flight at most, the thread has consumed some: it is up and running
    }
    const job = threads.run({ spinOnFinish: true } satisfies CountingJob, input(), controller.signal);
    await allSent;
    await sleep(100); // `end` reached the thread, which now computes for ever in `finish`
    expect(threads.threads).toBe(1);
    controller.abort();
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
    expect(threads.threads).toBe(0);
    // The pool goes on with a new thread.
    await expect(threads.run<Counted>({}, chunks(1, 10))).resolves.toMatchObject({ bytes: 10 });
  });

  it('rejects with AbortError a job that waits for a thread, without starting it', async () => {
    const threads = pool(1);
    const busy = new AbortController();
    const first = threads.run({ spinOnFinish: true }, chunks(1, 10), busy.signal);
    const waiting = new AbortController();
    const second = threads.run({}, chunks(1, 10), waiting.signal);
    waiting.abort();
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    busy.abort();
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    expect(threads.threads).toBe(0);
  });

  it("rejects with the thread's error, named as thrown, and the next job still runs", async () => {
    const threads = pool(1);
    await expect(
      threads.run({ failOnChunk: true } satisfies CountingJob, chunks(5, 10)),
    ).rejects.toMatchObject({
      name: 'RangeError',
      message: 'this thread refuses chunks',
    });
    await expect(threads.run<Counted>({}, chunks(2, 10))).resolves.toMatchObject({ bytes: 20 });
  });

  it('ends a thread left idle for idleMs and starts a new one for the next job', async () => {
    const threads = pool(1, 100);
    const first = await threads.run<Counted>({}, chunks(1, 10));
    expect(threads.threads).toBe(1);
    await waitUntil(() => threads.threads === 0, 'the idle thread to end');
    const second = await threads.run<Counted>({}, chunks(1, 10));
    expect(second.threadId).not.toBe(first.threadId);
  });

  it("rejects with the input's own error when the input fails", async () => {
    async function* failing(): AsyncIterable<Uint8Array> {
      yield new Uint8Array(10);
      throw new Error('the decoder failed');
    }
    await expect(pool(1).run({}, failing())).rejects.toThrow('the decoder failed');
  });

  it('leaves the caller its buffers: each chunk is copied before it is transferred', async () => {
    const mine = new Uint8Array([1, 2, 3]);
    async function* once(): AsyncIterable<Uint8Array> {
      yield mine;
    }
    await pool(1).run({}, once());
    expect([...mine]).toEqual([1, 2, 3]);
  });
});

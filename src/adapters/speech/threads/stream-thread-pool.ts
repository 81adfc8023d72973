import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { abortError, throwIfAborted } from '../abort.ts';
import type { FromThread, ToThread } from './protocol.ts';
import { startThread } from './thread-entry.ts';

export interface StreamThreadPoolOptions {
  /** Threads at most. Default: the number of cores. */
  size?: number;
  /** An idle thread is ended after this long. Default 60 s. */
  idleMs?: number;
  /** Chunks sent and not yet consumed, at most: bounds the memory a fast producer can fill. */
  maxChunksInFlight?: number;
}

/** A job waiting for a thread. */
type Waiter = (worker: Worker) => void;

/**
 * Worker threads for CPU-heavy work on streamed data (e.g. diarizing decoded audio), so it never
 * blocks the event loop that serves the API. A job holds one thread from `start` to its result;
 * at most `size` threads exist, further jobs wait in turn. Aborting a job terminates its thread at
 * once, even in the middle of a computation, and a new one is started when needed.
 */
export class StreamThreadPool {
  private readonly size: number;
  private readonly idleMs: number;
  private readonly maxInFlight: number;
  private readonly idle: Worker[] = [];
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private readonly waiting: Waiter[] = [];
  private readonly alive = new Set<Worker>();

  constructor(
    private readonly entry: URL,
    options: StreamThreadPoolOptions = {},
  ) {
    this.size = Math.max(1, Math.floor(options.size ?? availableParallelism()));
    this.idleMs = options.idleMs ?? 60_000;
    this.maxInFlight = Math.max(1, options.maxChunksInFlight ?? 16);
  }

  /** Threads alive now (busy or idle). */
  get threads(): number {
    return this.alive.size;
  }

  /** Threads running a job now. */
  get busy(): number {
    return this.alive.size - this.idle.length;
  }

  /**
   * Runs one job: `init` opens it in a thread, `input` is streamed to it (each chunk copied, so the
   * caller's buffers stay its own), and the thread's result is returned. Rejects with the thread's
   * error, with the input's error, or with an `AbortError` once `signal` aborts.
   */
  async run<R>(init: unknown, input: AsyncIterable<Uint8Array>, signal?: AbortSignal): Promise<R> {
    throwIfAborted(signal);
    const worker = await this.acquire(signal);
    try {
      const value = (await this.job(worker, init, input, signal)) as R;
      this.release(worker);
      return value;
    } catch (error) {
      // Its state is unknown (mid-job, or stuck in a computation): replace it rather than reuse it.
      await this.discard(worker);
      throw error;
    }
  }

  /** Ends the idle threads now rather than after `idleMs` (busy ones end with their jobs' aborts). */
  async close(): Promise<void> {
    await Promise.all([...this.idle].map((worker) => this.discard(worker)));
  }

  private acquire(signal: AbortSignal | undefined): Promise<Worker> {
    const ready = this.idle.pop();
    if (ready) {
      clearTimeout(this.idleTimers.get(ready));
      this.idleTimers.delete(ready);
      ready.ref();
      return Promise.resolve(ready);
    }
    if (this.alive.size < this.size) return Promise.resolve(this.spawn());
    return new Promise<Worker>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(abortError(signal as AbortSignal));
      };
      const waiter: Waiter = (worker) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(worker);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private spawn(): Worker {
    const worker = startThread(this.entry);
    this.alive.add(worker);
    // A failure to load the entry surfaces as an 'error' of the job that holds it; never unhandled.
    worker.on('error', () => {});
    // However a thread ends (discarded, idle too long, crashed while idle), its place is freed here.
    worker.once('exit', () => {
      this.alive.delete(worker);
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
      this.waiting.shift()?.(this.spawn());
    });
    return worker;
  }

  private release(worker: Worker): void {
    const waiter = this.waiting.shift();
    if (waiter) {
      waiter(worker);
      return;
    }
    worker.unref(); // an idle thread does not keep the process alive
    this.idle.push(worker);
    const timer = setTimeout(() => void this.discard(worker), this.idleMs);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }

  /** Ends the thread; resolves once it is gone and its place freed (see `spawn`). */
  private async discard(worker: Worker): Promise<void> {
    await worker.terminate().catch(() => {});
  }

  private job(
    worker: Worker,
    init: unknown,
    input: AsyncIterable<Uint8Array>,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let credits = this.maxInFlight;
      let wake: (() => void) | undefined;
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        wake?.();
        outcome();
      };
      const onMessage = (message: FromThread) => {
        if (message.type === 'ack') {
          credits++;
          wake?.();
        } else if (message.type === 'result') {
          settle(() => resolve(message.value));
        } else {
          const error = new Error(message.message);
          error.name = message.name;
          settle(() => reject(error));
        }
      };
      const onError = (error: Error) => settle(() => reject(error));
      const onExit = (code: number) =>
        settle(() => reject(new Error(`the worker thread exited with code ${code}`)));
      const onAbort = () => settle(() => reject(abortError(signal as AbortSignal)));
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();

      const send = (message: ToThread, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer);
      const pump = async () => {
        send({ type: 'start', init });
        for await (const chunk of input) {
          while (credits === 0 && !settled) await new Promise<void>((done) => (wake = done));
          if (settled) return; // leaving the loop ends the input (e.g. destroys the decoder's stdout)
          credits--;
          const data = new Uint8Array(chunk).buffer; // a copy of our own, transferred without another
          send({ type: 'chunk', data }, [data]);
        }
        if (!settled) send({ type: 'end' });
      };
      pump().catch((error: unknown) => settle(() => reject(error)));
    });
  }
}

import { availableParallelism } from 'node:os';
import { abortError, throwIfAborted } from './abort.ts';

/**
 * A counting semaphore with a queue in arrival order, so that work of one recording cannot overtake
 * the work of another that asked first. Waiting ends early when the waiter's signal aborts.
 */
export class CpuSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`size must be a positive integer, got ${size}`);
    this.free = size;
  }

  /** Slots taken now. */
  get inUse(): number {
    return this.size - this.free;
  }

  /** Resolves with a release function once a slot is free. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    throwIfAborted(signal);
    if (this.free > 0) {
      this.free -= 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(granted);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(abortError(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(granted);
    });
    return this.releaser();
  }

  /** Runs `work` holding a slot. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // A slot handed over stays taken; otherwise it becomes free.
      if (next) next();
      else this.free += 1;
    };
  }
}

/**
 * One recogniser process per core for the whole process, shared by every job: four short recordings
 * at once keep both cores of a two-core machine busy, and a long recording alone takes them all.
 */
export const recognizerSlots = new CpuSlots(Math.max(1, availableParallelism()));

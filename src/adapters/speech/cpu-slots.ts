import { availableParallelism } from 'node:os';
import type { RecognitionWait } from '../../ports/speech-to-text.ts';
import { abortError, throwIfAborted } from './abort.ts';
import { type HeldSlot, type QueuedChunk, SlotRates, slotStartEstimate } from './slot-wait-estimate.ts';

export interface RecordingShareOptions {
  /** Audio of the whole recording, ms: among recordings holding as many slots, less left goes first. */
  audioMs: number;
  /** The engine, whose measured speed (wall time per audio ms) estimates waits. */
  engine: string;
  /**
   * Told whenever the recording starts waiting or its wait changes (a `RecognitionWait`), and with `null` when
   * it holds a slot again. The first call says which of the two it is.
   */
  onWait?: (wait: RecognitionWait | null) => void;
}

/** Requests served before a waiter that asked earlier, at most, before it goes first whatever its rank. */
export const MAX_OVERTAKES = 4;

interface Waiter {
  share: RecordingShare;
  audioMs: number;
  seq: number;
  overtaken: number;
  grant: (slot: HeldSlot<RecordingShare>) => void;
}

/**
 * The recogniser slots of a process, shared fairly between recordings: a slot that frees goes to the
 * recording holding the fewest slots, then to the one with the least audio still to start, then to
 * the earliest request. A short recording submitted during a long one so gets the first slot one of
 * the long one's chunks frees (unless a request passed over `MAX_OVERTAKES` times goes first, or other
 * recordings hold fewer). No request is overtaken more than `MAX_OVERTAKES` times, so a long
 * recording is never starved by a stream of short ones. Waiting ends early when the waiter's signal
 * aborts.
 */
export class CpuSlots {
  private readonly held = new Set<HeldSlot<RecordingShare>>();
  private readonly waiting: Waiter[] = [];
  private readonly shares = new Set<RecordingShare>();
  private readonly rates = new SlotRates();
  private seq = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`size must be a positive integer, got ${size}`);
  }

  /** Slots taken now. */
  get inUse(): number {
    return this.held.size;
  }

  /** A recording's share of the slots: its chunks ask for slots through it. */
  recording(options: RecordingShareOptions): RecordingShare {
    return new RecordingShare(this, options);
  }

  /**
   * Resolves with a release function once a slot is free: a request of no recording, which ranks as
   * a recording with no audio (ahead of recordings holding as many slots); FIFO among its kind.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    return this.request(this.recording({ audioMs: 0, engine: '' }), 0, signal);
  }

  /** Runs `work` holding a slot. */
  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.recording({ audioMs: 0, engine: '' }).run(0, work, signal);
  }

  /** @internal A slot for `audioMs` of `share`'s audio. */
  async request(
    share: RecordingShare,
    audioMs: number,
    signal?: AbortSignal,
  ): Promise<(finished?: boolean) => void> {
    throwIfAborted(signal);
    this.shares.add(share);
    if (this.held.size < this.size && this.waiting.length === 0) {
      const slot = this.take(share, audioMs);
      this.tellShares();
      return this.releaser(slot);
    }
    const slot = await new Promise<HeldSlot<RecordingShare>>((resolve, reject) => {
      const waiter: Waiter = {
        share,
        audioMs,
        seq: this.seq++,
        overtaken: 0,
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        this.tellShares();
        reject(abortError(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.tellShares();
    });
    return this.releaser(slot);
  }

  private take(share: RecordingShare, audioMs: number): HeldSlot<RecordingShare> {
    const slot: HeldSlot<RecordingShare> = { share, engine: share.engine, audioMs, startedAt: Date.now() };
    this.held.add(slot);
    share.held += 1;
    share.unstartedMs = Math.max(0, share.unstartedMs - audioMs);
    return slot;
  }

  /** The release function of a slot: `finished` says the work ran to its end, so its speed counts. */
  private releaser(slot: HeldSlot<RecordingShare>): (finished?: boolean) => void {
    let released = false;
    return (finished = false) => {
      if (released) return;
      released = true;
      this.held.delete(slot);
      slot.share.held -= 1;
      if (finished) this.rates.record(slot, Date.now());
      const next = this.next();
      if (next) {
        this.waiting.splice(this.waiting.indexOf(next), 1);
        for (const other of this.waiting) if (other.seq < next.seq) other.overtaken += 1;
        next.grant(this.take(next.share, next.audioMs));
      }
      this.tellShares();
    };
  }

  /** The waiter a free slot goes to; see the class comment for the order. */
  private next(): Waiter | undefined {
    return this.inServiceOrder()[0];
  }

  /** The waiters in the order slots would go to them if nothing changed. */
  private inServiceOrder(): Waiter[] {
    const starved = this.waiting.filter((waiter) => waiter.overtaken >= MAX_OVERTAKES);
    const rest = this.waiting.filter((waiter) => waiter.overtaken < MAX_OVERTAKES);
    const byRank = (a: Waiter, b: Waiter) =>
      a.share.held - b.share.held || a.share.unstartedMs - b.share.unstartedMs || a.seq - b.seq;
    return [...starved.sort((a, b) => a.seq - b.seq), ...rest.sort(byRank)];
  }

  /** Tells each recording whether it waits, and for what, when that changed. */
  private tellShares(): void {
    const ordered = this.inServiceOrder();
    const now = Date.now();
    for (const share of this.shares) {
      const position = ordered.findIndex((waiter) => waiter.share === share);
      if (share.held === 0 && position < 0) {
        // Nothing held, nothing asked: between two chunks, done, or given up (said nothing more).
        this.shares.delete(share);
        continue;
      }
      if (share.held > 0) {
        share.tell(null);
        continue;
      }
      const ahead = new Set<RecordingShare>();
      for (const slot of this.held) ahead.add(slot.share);
      for (const waiter of ordered.slice(0, position)) if (waiter.share !== share) ahead.add(waiter.share);
      const queued: QueuedChunk[] = ordered
        .slice(0, position)
        .map((waiter) => ({ engine: waiter.share.engine, audioMs: waiter.audioMs }));
      const startsAt = slotStartEstimate([...this.held], queued, this.size, this.rates, now);
      share.tell({ recordingsAhead: ahead.size, ...(startsAt === undefined ? {} : { startsAt }) });
    }
  }
}

/** One recording's claim on the slots: how many it holds and how much of its audio has not started. */
export class RecordingShare {
  held = 0;
  unstartedMs: number;
  readonly engine: string;
  private told: string | undefined;

  constructor(
    private readonly slots: CpuSlots,
    private readonly options: RecordingShareOptions,
  ) {
    this.unstartedMs = options.audioMs;
    this.engine = options.engine;
  }

  /** Runs `work`, one chunk of `audioMs` of this recording, holding a slot. */
  async run<T>(audioMs: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.slots.request(this, audioMs, signal);
    let finished = false;
    try {
      const result = await work();
      finished = true;
      return result;
    } finally {
      release(finished);
    }
  }

  /** @internal */
  tell(wait: RecognitionWait | null): void {
    // Estimates are kept to the second: a recomputation that moves them less is no news.
    const key = wait
      ? `${wait.recordingsAhead}:${wait.startsAt === undefined ? '' : Math.round(wait.startsAt / 1000)}`
      : 'running';
    if (key === this.told) return;
    this.told = key;
    this.options.onWait?.(wait);
  }
}

/**
 * One recogniser process per core for the whole process, shared by every job: four short recordings
 * at once keep both cores of a two-core machine busy, and a long recording alone takes them all.
 */
export const recognizerSlots = new CpuSlots(Math.max(1, availableParallelism()));

import type { RecognitionProgress } from '../../ports/speech-to-text.ts';

export type ProgressCallback = (progress: RecognitionProgress) => Promise<void> | void;

/**
 * Serialises progress reports, in the order they were made, and limits the rate of ticks. Reports
 * (the engine's own stage changes) are awaited and their errors propagate; the ticks while audio
 * streams are best-effort and dropped while another report is on its way, because a failed progress
 * write should not throw away minutes of recognition, and a slow one must not stall the audio
 * pipeline. Posts (a recording that starts or stops waiting for a recogniser) come from callbacks
 * that cannot wait: best-effort too (errors swallowed), never dropped, only replaced by a newer post
 * not yet sent.
 */
export class ProgressReporter {
  private lastAt = 0;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private posted: RecognitionProgress | undefined;

  constructor(
    private readonly callback: ProgressCallback | undefined,
    private readonly intervalMs: number,
  ) {}

  report(progress: RecognitionProgress): Promise<void> {
    return this.send(() => progress);
  }

  tick(progress: RecognitionProgress): void {
    if (this.pending > 0 || Date.now() - this.lastAt < this.intervalMs) return;
    this.send(() => progress).catch(() => {});
  }

  post(progress: RecognitionProgress): void {
    const queued = this.posted !== undefined;
    this.posted = progress;
    if (queued) return;
    this.send(() => {
      const latest = this.posted;
      this.posted = undefined;
      return latest;
    }).catch(() => {});
  }

  private send(next: () => RecognitionProgress | undefined): Promise<void> {
    const callback = this.callback;
    if (!callback) {
      this.posted = undefined;
      return Promise.resolve();
    }
    this.pending += 1;
    const sent = this.queue.then(async () => {
      const progress = next();
      if (!progress) return;
      this.lastAt = Date.now();
      await callback(progress);
    });
    this.queue = sent.then(
      () => {},
      () => {},
    );
    return sent.finally(() => {
      this.pending -= 1;
    });
  }
}

import type { RecognitionProgress } from '../../ports/speech-to-text.ts';

export type ProgressCallback = (progress: RecognitionProgress) => Promise<void> | void;

/**
 * Serialises progress reports and limits their rate. Stage changes are awaited (their errors
 * propagate); the ticks while audio streams are best-effort, because a failed progress write should
 * not throw away minutes of recognition, and a slow one must not stall the audio pipeline.
 */
export class ProgressReporter {
  private lastAt = 0;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly callback: ProgressCallback | undefined,
    private readonly intervalMs: number,
  ) {}

  async report(progress: RecognitionProgress): Promise<void> {
    if (!this.callback) return;
    await this.inFlight;
    this.lastAt = Date.now();
    await this.callback(progress);
  }

  tick(progress: RecognitionProgress): void {
    const callback = this.callback;
    if (!callback || this.inFlight || Date.now() - this.lastAt < this.intervalMs) return;
    this.lastAt = Date.now();
    this.inFlight = Promise.resolve()
      .then(() => callback(progress))
      .catch(() => {})
      .finally(() => {
        this.inFlight = undefined;
      });
  }
}

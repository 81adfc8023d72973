/**
 * The most recent samples of a stream, by their position in the whole stream: the diarizer's voice
 * embeddings read a window's speech once its voice-activity decisions are final (10 s later), without
 * keeping the recording in memory.
 */
export class SampleHistory {
  private readonly ring: Float32Array;
  /** Samples written since the stream began. */
  written = 0;

  constructor(capacity: number) {
    this.ring = new Float32Array(capacity);
  }

  push(sample: number): void {
    this.ring[this.written % this.ring.length] = sample;
    this.written++;
  }

  /** Samples [start, end) of the stream, or undefined when some are no longer (or not yet) held. */
  read(start: number, end: number): Float32Array | undefined {
    if (start < 0 || end > this.written || start < this.written - this.ring.length || end < start)
      return undefined;
    const out = new Float32Array(end - start);
    for (let i = start; i < end; i++) out[i - start] = this.ring[i % this.ring.length] ?? 0;
    return out;
  }
}

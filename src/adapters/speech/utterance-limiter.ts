import { Transform, type TransformCallback } from 'node:stream';
import { PCM_BYTES_PER_MS } from './ffmpeg.ts';

const FRAME_BYTES = 10 * PCM_BYTES_PER_MS;
const QUIET_SPAN_FRAMES = 20;

/**
 * pocketsphinx holds a whole utterance in memory (measured: ~0.2 MB per second of audio) and ends one
 * only after a 0.5 s pause, so speech without such pauses would grow it without bound. Every
 * `maxUtteranceMs` at most, this inserts a near-silent pause at the quietest 200 ms of the last third of
 * that stretch (between words, as a rule), holding back at most a third of it. Word times are mapped
 * back with `toOriginalMs`.
 */
export class UtteranceLimiter extends Transform {
  /** Bytes received: the position in the original recording. */
  inputBytes = 0;
  private readonly passBytes: number;
  private readonly maxBytes: number;
  private readonly insertedPause: Buffer;
  private readonly onInput: (bytes: number) => void;
  private sinceBreak = 0;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private outputBytes = 0;
  /** Where pauses were inserted, in the time of the stream pocketsphinx sees. */
  private readonly inserted: { atMs: number; lengthMs: number }[] = [];

  constructor(options: { maxUtteranceMs: number; pauseMs: number; onInput?: (bytes: number) => void }) {
    super();
    const frames = (ms: number) => Math.max(1, Math.round(ms / 10)) * FRAME_BYTES;
    this.maxBytes = frames(options.maxUtteranceMs);
    this.passBytes = frames((options.maxUtteranceMs * 2) / 3);
    this.insertedPause = lowNoise(frames(options.pauseMs));
    this.onInput = options.onInput ?? (() => {});
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.inputBytes += chunk.length;
    let rest = chunk;
    while (rest.length > 0) {
      const room =
        this.sinceBreak < this.passBytes
          ? this.passBytes - this.sinceBreak
          : this.maxBytes - this.sinceBreak - this.heldBytes;
      const part = rest.subarray(0, room);
      rest = rest.subarray(part.length);
      if (this.sinceBreak < this.passBytes) {
        this.sinceBreak += part.length;
        this.output(part);
      } else {
        this.held.push(part);
        this.heldBytes += part.length;
        if (this.sinceBreak + this.heldBytes >= this.maxBytes) this.breakAtQuietest();
      }
    }
    this.onInput(this.inputBytes);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    for (const part of this.held) this.output(part);
    this.held = [];
    callback();
  }

  /** Maps a time in the stream pocketsphinx saw back to the original recording. */
  toOriginalMs(ms: number): number {
    let shift = 0;
    for (const { atMs, lengthMs } of this.inserted) {
      if (ms <= atMs) break;
      shift += Math.min(lengthMs, ms - atMs);
    }
    return ms - shift;
  }

  private breakAtQuietest(): void {
    const window = Buffer.concat(this.held);
    this.held = [];
    this.heldBytes = 0;
    const cut = quietestCut(window);
    this.output(window.subarray(0, cut));
    this.inserted.push({
      atMs: this.outputBytes / PCM_BYTES_PER_MS,
      lengthMs: this.insertedPause.length / PCM_BYTES_PER_MS,
    });
    this.output(this.insertedPause);
    // The rest is shorter than `passBytes`, so it starts the next stretch without another check.
    this.output(window.subarray(cut));
    this.sinceBreak = window.length - cut;
  }

  private output(part: Buffer): void {
    this.outputBytes += part.length;
    this.push(part);
  }
}

/** Byte offset in the middle of the 200 ms with the least energy (frame-aligned, so sample-aligned). */
function quietestCut(window: Buffer): number {
  const frameCount = Math.floor(window.length / FRAME_BYTES);
  if (frameCount <= QUIET_SPAN_FRAMES) return frameCount * FRAME_BYTES;
  const energy = new Float64Array(frameCount);
  for (let frame = 0; frame < frameCount; frame++) {
    let sum = 0;
    for (let offset = frame * FRAME_BYTES; offset < (frame + 1) * FRAME_BYTES; offset += 2) {
      const sample = window.readInt16LE(offset);
      sum += sample * sample;
    }
    energy[frame] = sum;
  }
  let span = 0;
  for (let frame = 0; frame < QUIET_SPAN_FRAMES; frame++) span += energy[frame] ?? 0;
  let best = span;
  let bestStart = 0;
  for (let start = 1; start + QUIET_SPAN_FRAMES <= frameCount; start++) {
    span += (energy[start + QUIET_SPAN_FRAMES - 1] ?? 0) - (energy[start - 1] ?? 0);
    if (span < best) {
      best = span;
      bestStart = start;
    }
  }
  return (bestStart + QUIET_SPAN_FRAMES / 2) * FRAME_BYTES;
}

/** ±2 LSB of fixed pseudo-random noise: digital zeros can upset the recogniser's noise estimate. */
function lowNoise(bytes: number): Buffer {
  const buffer = Buffer.alloc(bytes);
  let state = 0x2545f491;
  for (let offset = 0; offset + 1 < bytes; offset += 2) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    buffer.writeInt16LE(((state >>> 16) % 5) - 2, offset);
  }
  return buffer;
}

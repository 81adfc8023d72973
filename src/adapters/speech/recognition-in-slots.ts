import type { RecognitionProgress } from '../../ports/speech-to-text.ts';
import { type Chunk, runPool } from './chunking.ts';
import type { CpuSlots } from './cpu-slots.ts';
import type { ProgressReporter } from './progress-reporter.ts';

export interface RecognitionInSlots<R> {
  chunks: readonly Chunk[];
  /** The engine's name, whose speed on this machine estimates the waits of recordings behind it. */
  engine: string;
  slots: CpuSlots;
  /** Chunks of this recording heard at once. */
  concurrency: number;
  progress: ProgressReporter;
  /** Where recognition is now, said when the recording gets a recogniser back after waiting. */
  recognizing: () => RecognitionProgress;
  hear: (chunk: Chunk, signal: AbortSignal) => Promise<R>;
  signal?: AbortSignal | undefined;
}

/**
 * Hears a recording's chunks, each holding one of the recogniser slots it shares fairly with other
 * recordings (cpu-slots.ts), and says on `progress` which it is doing: being recognised, or waiting
 * for a recogniser (stage `waiting`, with the recordings ahead and when it should start).
 */
export function recognizeInSlots<R>(options: RecognitionInSlots<R>): Promise<R[]> {
  const { progress } = options;
  // What the chunks read (overlaps included), so that what is left to start reaches 0 at the last one.
  const audioMs = options.chunks.reduce((sum, chunk) => sum + lengthOf(chunk), 0);
  const share = options.slots.recording({
    audioMs,
    engine: options.engine,
    onWait: (wait) => progress.post(wait ? { stage: 'waiting', waiting: wait } : options.recognizing()),
  });
  return runPool(
    options.chunks,
    options.concurrency,
    (chunk, signal) => share.run(lengthOf(chunk), () => options.hear(chunk, signal), signal),
    options.signal,
  );
}

const lengthOf = (chunk: Chunk) => chunk.endMs - chunk.startMs;

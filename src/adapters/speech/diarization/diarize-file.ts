import { createReadStream } from 'node:fs';
import { abortError, throwIfAborted } from '../abort.ts';
import { decodeToPcm, type PcmDecoding } from '../ffmpeg.ts';
import { StreamThreadPool } from '../threads/stream-thread-pool.ts';
import { threadEntry } from '../threads/thread-entry.ts';
import type { DiarizeOptions, DiarizerJob, SpeakerTurn } from './types.ts';

/** One pool for the process, as many threads as cores at most, started on first use. */
let pool: StreamThreadPool | undefined;

function diarizerThreads(): StreamThreadPool {
  pool ??= new StreamThreadPool(threadEntry(import.meta.url, 'diarizer-thread'));
  return pool;
}

/** Diarizations running now, each in its thread (a cancelled one is not). */
export function diarizationsRunning(): number {
  return pool?.busy ?? 0;
}

/**
 * Diarizes the audio file at `audioPath` (any format ffmpeg decodes). ffmpeg decodes here and the PCM
 * is streamed to a diarizer thread (diarizer-thread.ts), which does all the computing. Aborting
 * `signal` kills ffmpeg, ends the thread and rejects with an `AbortError`.
 */
export async function diarizeFile(
  audioPath: string,
  options: DiarizeOptions = {},
  signal?: AbortSignal,
): Promise<SpeakerTurn[]> {
  throwIfAborted(signal);
  const decoding = decodeToPcm(audioPath, options.ffmpegPath ? { ffmpegPath: options.ffmpegPath } : {});
  const stop = () => decoding.kill();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    return await diarizerThreads().run<SpeakerTurn[]>(diarizerJob(options), decodedPcm(decoding), signal);
  } catch (error) {
    decoding.kill();
    await decoding.done.catch(() => {}); // ffmpeg is gone before this settles
    throw signal?.aborted ? abortError(signal) : error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

function diarizerJob(options: DiarizeOptions): DiarizerJob {
  return {
    ...(options.speakersExpected ? { speakersExpected: options.speakersExpected } : {}),
    ...(options.voiceModel ? { voiceModel: options.voiceModel } : {}),
  };
}

/** The PCM, then ffmpeg's verdict: a file that is not audio fails the job before it is finished. */
async function* decodedPcm(decoding: PcmDecoding): AsyncIterable<Uint8Array> {
  for await (const chunk of decoding.pcm) yield chunk as Buffer;
  await decoding.done;
}

/**
 * Diarizes a recording already decoded to a PCM file (decoded-recording.ts), which the recogniser
 * reads too: no ffmpeg of its own. Aborting `signal` ends the thread and rejects with an `AbortError`.
 */
export async function diarizePcmFile(
  pcmPath: string,
  options: Omit<DiarizeOptions, 'ffmpegPath'> = {},
  signal?: AbortSignal,
): Promise<SpeakerTurn[]> {
  throwIfAborted(signal);
  try {
    return await diarizerThreads().run<SpeakerTurn[]>(diarizerJob(options), pcmFile(pcmPath), signal);
  } catch (error) {
    throw signal?.aborted ? abortError(signal) : error;
  }
}

/**
 * The file's PCM, opened only once a thread reads it: a diarization waiting for a thread (more jobs
 * than cores) holds no descriptor, and an open that fails rejects its job instead of surfacing as an
 * unhandled stream error.
 */
async function* pcmFile(path: string): AsyncIterable<Uint8Array> {
  const stream = createReadStream(path);
  try {
    yield* stream;
  } finally {
    stream.destroy();
  }
}

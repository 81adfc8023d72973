import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RecognitionHints, RecognitionResult, SpeechToText } from '../../ports/speech-to-text.ts';
import { diskSpace } from '../disk-space.ts';
import { abortError, throwIfAborted } from './abort.ts';
import { runInBackground } from './background-priority.ts';
import type { PcmRange } from './chunking.ts';
import {
  childExit,
  collectTail,
  type FfmpegOptions,
  ffmpegFailure,
  killQuietly,
  PCM_BYTES_PER_MS,
  pcmDecodingArgs,
} from './ffmpeg.ts';
import type { ProgressCallback } from './progress-reporter.ts';

/**
 * A recording decoded once to raw 16 kHz mono s16le PCM in a scratch file, which the recogniser's
 * chunks and the diarizer all read: one ffmpeg per recording instead of one per chunk plus one for the
 * diarizer (issue 23: each ffmpeg maps ~41 MiB, and every spawn from the service stalls its event loop).
 */
export interface DecodedRecording {
  readonly path: string;
  /** Exact, from the number of samples (a container's stated duration can be missing or an estimate). */
  readonly durationMs: number;
  /** Deletes the file and its folder; harmless when called again. */
  remove(): Promise<void>;
}

export interface DecodeOptions extends FfmpegOptions {
  /** Where the PCM file's private folder is made (the runtime's work dir). Default: the OS temp dir. */
  scratchDir?: string;
}

/**
 * Decodes the first sound track of `inputPath` (any container/codec ffmpeg knows) into a PCM file.
 * Throws `UnreadableAudioError` for a file that is not audio or has no sound track, an `ENOSPC` error
 * when the scratch disk fills up (transient: the work waits for space), `MissingProgramError` when
 * ffmpeg cannot be run. Aborting `signal` kills ffmpeg and rejects with an `AbortError`. On every
 * failure nothing is left behind.
 */
export async function decodeRecording(
  inputPath: string,
  options: DecodeOptions = {},
  signal?: AbortSignal,
): Promise<DecodedRecording> {
  throwIfAborted(signal);
  // mkdtemp makes the folder 0700: only this service's user can read the audio.
  const dir = await mkdtemp(join(resolve(options.scratchDir ?? tmpdir()), 'notes-pcm-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'audio.s16le');
  try {
    // Never past the disk's reserve: a recording too long for the free space must not fill the disk
    // that the database and the other jobs write to. It waits for space like any full-disk fault.
    const { free, reserve } = await diskSpace(dir);
    const room = Math.floor(free - reserve);
    if (room < MIN_ROOM_BYTES) throw noRoomToDecode(free, reserve);
    await runFfmpeg(inputPath, path, room, options.ffmpegPath ?? 'ffmpeg', signal);
    const { size } = await stat(path);
    // ffmpeg's `-fs` stops writing at the limit and exits as if the input had ended.
    if (size >= room) throw noRoomToDecode(free, reserve);
    return { path, durationMs: size / PCM_BYTES_PER_MS, remove };
  } catch (error) {
    await remove();
    throw signal?.aborted ? abortError(signal) : error;
  }
}

/** Less room than this (a second of audio) is no room at all. */
const MIN_ROOM_BYTES = 1000 * PCM_BYTES_PER_MS;

/** A full-disk fault (`ENOSPC`: storage-faults.ts), so the job waits for space instead of failing. */
function noRoomToDecode(free: number, reserve: number): Error {
  const mb = (bytes: number) => Math.max(0, Math.round(bytes / 2 ** 20));
  return Object.assign(
    new Error(
      `Not enough free disk space to decode the recording (${mb(free)} MB free, ${mb(reserve)} MB kept in reserve; about 115 MB are needed per hour of audio)`,
    ),
    { code: 'ENOSPC' },
  );
}

async function runFfmpeg(
  inputPath: string,
  outputPath: string,
  maxBytes: number,
  program: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  throwIfAborted(signal);
  const args = [...pcmDecodingArgs(inputPath), '-fs', String(maxBytes), '-y', outputPath];
  const child = runInBackground(spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  const stderr = collectTail(child);
  const kill = () => killQuietly(child);
  signal?.addEventListener('abort', kill, { once: true });
  try {
    const { code, signal: killedBy } = await childExit(child, program);
    throwIfAborted(signal);
    if (code !== 0) throw ffmpegFailure(program, inputPath, stderr(), code, killedBy);
  } finally {
    signal?.removeEventListener('abort', kill);
  }
}

/**
 * An engine that can recognise a recording already decoded by `decodeRecording` (pocketsphinx):
 * `DiarizingSpeechToText` then decodes once and gives the same file to the engine and the diarizer.
 * Engines that send the original file elsewhere (an OpenAI-compatible server) do not implement it.
 */
export interface DecodedPcmSpeechToText extends SpeechToText {
  /** Decodes `audioPath` the way this engine would (its ffmpeg, its scratch folder). */
  decode(audioPath: string, signal?: AbortSignal): Promise<DecodedRecording>;
  /** Like `transcribe`, from the decoded file, which stays the caller's to remove. */
  transcribeDecoded(
    recording: DecodedRecording,
    onProgress?: ProgressCallback,
    hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult>;
}

export function readsDecodedPcm(engine: SpeechToText): engine is DecodedPcmSpeechToText {
  const candidate = engine as Partial<DecodedPcmSpeechToText>;
  return typeof candidate.decode === 'function' && typeof candidate.transcribeDecoded === 'function';
}

/** The byte range of a PCM file that holds `startMs` for `durationMs` (to the end when omitted). */
export function pcmByteRange(range: PcmRange): { start: number; end?: number } {
  // Whole samples only: an odd offset would swap every sample's bytes.
  const start = Math.round(Math.max(0, range.startMs) * (PCM_BYTES_PER_MS / 2)) * 2;
  if (range.durationMs === undefined) return { start };
  const length = Math.round(Math.max(0, range.durationMs) * (PCM_BYTES_PER_MS / 2)) * 2;
  // createReadStream's `end` is inclusive.
  return { start, end: start + length - 1 };
}

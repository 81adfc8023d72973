import { type ChildProcess, spawn } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { UnreadableAudioError } from '../../domain/errors.ts';
import { throwIfAborted } from './abort.ts';
import { runInBackground } from './background-priority.ts';

/** Recognisers here want 16 kHz mono signed 16-bit little-endian PCM. */
export const PCM_SAMPLE_RATE = 16_000;
export const PCM_BYTES_PER_MS = (PCM_SAMPLE_RATE * 2) / 1000;

export interface FfmpegOptions {
  /** Default `ffmpeg` (looked up on PATH). */
  ffmpegPath?: string;
  /**
   * Default: `ffprobe` next to `ffmpegPath` when that is a path, else `ffprobe` on PATH. When it cannot be
   * run (static ffmpeg builds from npm ship no ffprobe), probing falls back to `ffmpeg -i`.
   */
  ffprobePath?: string;
}

export interface PcmDecoding {
  /** Raw PCM; pipe it on rather than collecting it, so long files never sit in memory. */
  pcm: Readable;
  /** Settles when ffmpeg exits; rejects with `UnreadableAudioError` when the input is not audio. */
  done: Promise<void>;
  /** Stops ffmpeg early (e.g. when the consumer failed). */
  kill(): void;
}

/** ffmpeg messages that mean "these bytes are not (usable) audio": permanent, retrying cannot help. */
const NOT_AUDIO = [
  /Invalid data found when processing input/i,
  /does not contain any stream/i,
  /matches no streams/i,
  /could not find codec parameters/i,
  /no decoder found|decoder \S+ not found|unknown decoder/i,
  /End of file/i,
];
const NO_AUDIO_STREAM = /matches no streams|does not contain any stream/i;
/**
 * The job's `detail` for a file without any audio track (a screen recording made with the microphone
 * off, a video exported without sound): the user's next step is a different file, not a retry.
 */
export const NO_SOUND_TRACK =
  'This file has no sound track, so there is nothing to transcribe: upload a recording with audio';
/** Keep only the tail of stderr: with a corrupt file ffmpeg can emit one warning per frame. */
const STDERR_TAIL_CHARS = 4096;
const REASON_MAX_CHARS = 160;

/**
 * ffmpeg's arguments for decoding the first sound track of `inputPath` to 16 kHz mono s16le, up to
 * the output, which the caller appends (a pipe, or a file with its options).
 */
export function pcmDecodingArgs(inputPath: string): string[] {
  // `-map 0:a:0` makes "no audio stream" an error instead of a silent empty output.
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', inputPath, '-map', '0:a:0', '-vn'];
  args.push('-ac', '1', '-ar', String(PCM_SAMPLE_RATE), '-f', 's16le', '-acodec', 'pcm_s16le');
  return args;
}

/**
 * Spawns ffmpeg decoding `inputPath` (any container/codec it knows) to 16 kHz mono s16le on stdout.
 * The service decodes to a file instead (decoded-recording.ts, same flags), read by every consumer;
 * this stream serves an engine that keeps the original file (the diarizer next to a remote engine).
 */
export function decodeToPcm(inputPath: string, options: FfmpegOptions = {}): PcmDecoding {
  const program = options.ffmpegPath ?? 'ffmpeg';
  const args = [...pcmDecodingArgs(inputPath), 'pipe:1'];
  const child = runInBackground(spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  const stderr = collectTail(child);
  const done = childExit(child, program).then(({ code, signal }) => {
    if (code === 0) return;
    throw ffmpegFailure(program, inputPath, stderr(), code, signal);
  });
  // The caller may never await `done` when it fails for another reason first.
  done.catch(() => {});
  return { pcm: child.stdout as Readable, done, kill: () => killQuietly(child) };
}

/**
 * Duration of the audio in `inputPath`, or `undefined` when the container does not say (e.g. WebM
 * recorded by a browser). Throws `UnreadableAudioError` when the file is not audio.
 */
export async function probeDurationMs(
  inputPath: string,
  options: FfmpegOptions = {},
  abort?: AbortSignal,
): Promise<number | undefined> {
  const ffmpeg = options.ffmpegPath ?? 'ffmpeg';
  const ffprobe = options.ffprobePath ?? siblingProgram(ffmpeg, 'ffprobe');
  try {
    return await probeWithFfprobe(inputPath, ffprobe, abort);
  } catch (error) {
    if (!isMissingProgram(error)) throw error;
  }
  return probeWithFfmpeg(inputPath, ffmpeg, abort);
}

async function probeWithFfprobe(
  inputPath: string,
  program: string,
  abort: AbortSignal | undefined,
): Promise<number | undefined> {
  const args = ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=duration:format=duration'];
  args.push('-of', 'json', '-i', inputPath); // `-i`: a path starting with '-' stays a path.
  const { code, signal, stdout, stderr } = await run(program, args, abort);
  if (code !== 0) throw ffmpegFailure('ffprobe', inputPath, stderr, code, signal);
  const parsed = JSON.parse(stdout) as { streams?: { duration?: string }[]; format?: { duration?: string } };
  const stream = parsed.streams?.[0];
  if (!stream) throw new UnreadableAudioError(`${NO_SOUND_TRACK} (ffprobe found no audio stream)`);
  return secondsToMs(stream.duration) ?? secondsToMs(parsed.format?.duration);
}

/** Without an output file `ffmpeg -i` exits 1 after printing the input summary, which is all we need. */
async function probeWithFfmpeg(
  inputPath: string,
  program: string,
  abort: AbortSignal | undefined,
): Promise<number | undefined> {
  const { code, signal, stderr } = await run(program, ['-hide_banner', '-nostdin', '-i', inputPath], abort);
  if (!/^\s*Stream #\S+.*: Audio:/m.test(stderr)) {
    if (/^\s*Stream #/m.test(stderr)) {
      throw new UnreadableAudioError(`${NO_SOUND_TRACK} (ffmpeg found no audio stream)`);
    }
    throw ffmpegFailure('ffmpeg', inputPath, stderr, code === 0 ? 1 : code, signal);
  }
  const match = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  if (!match) return undefined;
  const [, h, m, s] = match;
  return Math.round((Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000);
}

/** Maps a failed ffmpeg/ffprobe run to a permanent `UnreadableAudioError` or a transient `Error`. */
export function ffmpegFailure(
  program: string,
  inputPath: string,
  stderr: string,
  code: number | null,
  signal: NodeJS.Signals | null,
): Error {
  const lines = stderr.split('\n').map((line) => cleanLine(line, inputPath));
  // Its output file could not be written (the scratch folder's disk is full): a storage fault,
  // which waits for space (src/ports/storage-faults.ts), not a fault of the recording
  // (checked first: a full disk must never have the recording discarded as not audio).
  if (lines.some((line) => /No space left on device/i.test(line))) {
    return Object.assign(new Error(`${basename(program)} ran out of disk space for its output`), {
      code: 'ENOSPC',
    });
  }
  const notAudio = lines.find((line) => NOT_AUDIO.some((pattern) => pattern.test(line)));
  if (notAudio !== undefined) {
    return new UnreadableAudioError(
      NO_AUDIO_STREAM.test(notAudio)
        ? `${NO_SOUND_TRACK} (${basename(program)}: ${notAudio})`
        : `The uploaded file is not a recognisable audio format (${basename(program)}: ${notAudio})`,
    );
  }
  const last = lines.filter((line) => line !== '').at(-1) ?? 'no error output';
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return new Error(`${basename(program)} ${how}: ${last}`);
}

/** Drops the `[demuxer @ 0x…]` tag and the input path ffmpeg prefixes to messages: short, no internal paths. */
function cleanLine(line: string, inputPath: string): string {
  let text = line.trim().replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, '');
  if (text.startsWith(`${inputPath}: `)) text = text.slice(inputPath.length + 2);
  return text.length > REASON_MAX_CHARS ? `${text.slice(0, REASON_MAX_CHARS)}…` : text;
}

function secondsToMs(value: string | undefined): number | undefined {
  const seconds = Number(value);
  return value !== undefined && Number.isFinite(seconds) && seconds >= 0
    ? Math.round(seconds * 1000)
    : undefined;
}

function siblingProgram(program: string, sibling: string): string {
  return program.includes('/') ? join(dirname(program), sibling) : sibling;
}

export function isMissingProgram(error: unknown): boolean {
  return error instanceof MissingProgramError;
}

/** The binary could not be started: an infrastructure problem, so a plain (retryable) Error. */
export class MissingProgramError extends Error {
  override readonly name = 'MissingProgramError';
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves when the child has exited and its pipes are closed; rejects when it could not start. */
export function childExit(child: ChildProcess, program: string): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') {
        reject(
          new MissingProgramError(`Cannot run ${program} (${error.code}): is it installed and on PATH?`),
        );
      } else {
        reject(error);
      }
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

export function killQuietly(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** `ms` of PCM near-silence: ±2 LSB of fixed pseudo-random noise, as digital zeros can upset recognisers. */
export function lowNoisePcm(ms: number): Buffer {
  const buffer = Buffer.alloc(Math.round(ms) * PCM_BYTES_PER_MS);
  let state = 0x2545f491;
  for (let offset = 0; offset + 1 < buffer.length; offset += 2) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    buffer.writeInt16LE(((state >>> 16) % 5) - 2, offset);
  }
  return buffer;
}

/** Returns a getter for the last few KB the child wrote to stderr. */
export function collectTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail;
}

/** Runs a short-lived program whose output is small (probing only); `abort` kills it. */
async function run(
  program: string,
  args: string[],
  abort: AbortSignal | undefined,
): Promise<ChildExit & { stdout: string; stderr: string }> {
  // spawn() with an aborted signal still starts the program (and kills it at once): start nothing.
  throwIfAborted(abort);
  const child = spawn(program, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(abort ? { signal: abort, killSignal: 'SIGKILL' as const } : {}),
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  const stderr = collectTail(child);
  const exit = await childExit(child, program);
  return { ...exit, stdout, stderr: stderr() };
}

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import { GenerationFailedError } from '../../ports/generation-errors.ts';
import type { SpeechSynthesizer, SynthesisLine } from '../../ports/speech-synthesizer.ts';
import { abortError, throwIfAborted } from '../speech/abort.ts';
import { runPool } from '../speech/chunking.ts';
import {
  type ChildExit,
  childExit,
  collectTail,
  killQuietly,
  MissingProgramError,
} from '../speech/ffmpeg.ts';
import { normalizeLanguage } from './polly-voices.ts';

export interface FliteSpeechSynthesizerOptions {
  /** Default `flite` (on PATH; Debian package `flite`). */
  fliteBin?: string;
  /** Default `ffmpeg` (on PATH), built with libmp3lame. */
  ffmpegBin?: string;
  /** Silence between lines. Default 350 ms. */
  pauseMs?: number;
  /** Where the per-line WAV files go (a fresh directory inside it, removed afterwards). Default `os.tmpdir()`. */
  tmpDir?: string;
  /** flite processes at once. Default: the CPU count. */
  concurrency?: number;
}

/** flite's built-in US English voices: female and male. */
export const FLITE_HOST_VOICES: readonly [string, string] = ['slt', 'rms'];
export const FLITE_MP3_SAMPLE_RATE = 22_050;
export const FLITE_MP3_BITRATE = '64k';
/** Longer text goes to flite in a file: one argument may not exceed 128 KiB on Linux. */
const MAX_TEXT_ARG_BYTES = 100_000;
const FFMPEG_QUIET = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'];

/**
 * Local, offline text to speech: flite renders each line to a WAV file (in parallel), the samples are
 * joined with silence in between and piped to ffmpeg, which resamples and encodes one MP3.
 */
export class FliteSpeechSynthesizer implements SpeechSynthesizer {
  readonly name = 'flite';
  private readonly fliteBin: string;
  private readonly ffmpegBin: string;
  private readonly pauseMs: number;
  private readonly tmpDir: string;
  private readonly concurrency: number;
  private voices?: Promise<Set<string>>;

  constructor(options: FliteSpeechSynthesizerOptions = {}) {
    this.fliteBin = options.fliteBin ?? 'flite';
    this.ffmpegBin = options.ffmpegBin ?? 'ffmpeg';
    this.pauseMs = options.pauseMs ?? 350;
    this.tmpDir = options.tmpDir ?? tmpdir();
    this.concurrency = options.concurrency ?? Math.max(1, availableParallelism());
  }

  hostVoices(language: string): [string, string] | null {
    return normalizeLanguage(language)?.primary === 'en' ? [...FLITE_HOST_VOICES] : null;
  }

  async synthesize(
    lines: SynthesisLine[],
    outputPath: string,
    signal?: AbortSignal,
  ): Promise<{ duration_ms: number }> {
    throwIfAborted(signal);
    const spoken = lines
      .map((line) => ({ voice: line.voice, text: speakable(line.text) }))
      .filter((line) => line.text !== '');
    if (spoken.length === 0) throw new GenerationFailedError('Nothing to synthesize: every line is empty');
    await this.checkVoices(spoken.map((line) => line.voice));
    const dir = await mkdtemp(join(this.tmpDir, 'flite-')).catch((error: unknown) => {
      throw asGenerationFailure(error);
    });
    try {
      const numbered = spoken.map((line, index) => ({ ...line, index }));
      const wavs = await runPool(
        numbered,
        this.concurrency,
        (line, lineSignal) => this.speak(line, dir, lineSignal),
        signal,
      );
      return await this.encode(wavs, outputPath, signal);
    } catch (error) {
      // A process killed by the abort fails in its own words; the caller needs to know it cancelled.
      throw signal?.aborted ? abortError(signal) : error;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** flite falls back to another voice without a word when asked for one it lacks: check first. */
  private async checkVoices(wanted: string[]): Promise<void> {
    this.voices ??= this.listVoices();
    const voices = await this.voices.catch((error: unknown) => {
      this.voices = undefined; // try again next time (e.g. flite installed meanwhile)
      throw error;
    });
    const missing = [...new Set(wanted)].filter((voice) => !voices.has(voice));
    if (missing.length > 0) {
      throw new GenerationFailedError(
        `flite has no voice ${missing.join(', ')} (available: ${[...voices].join(', ')})`,
      );
    }
  }

  private async listVoices(): Promise<Set<string>> {
    const { exit, stdout } = await runProgram(this.fliteBin, ['-lv'], undefined, true);
    const match = /Voices available:(.*)/.exec(stdout);
    if (exit.code !== 0 || !match?.[1]) throw processFailure(this.fliteBin, 'listing its voices', exit);
    return new Set(match[1].trim().split(/\s+/));
  }

  private async speak(
    line: { voice: string; text: string; index: number },
    dir: string,
    signal: AbortSignal,
  ): Promise<string> {
    const name = `line-${String(line.index).padStart(5, '0')}`;
    const wav = join(dir, `${name}.wav`);
    // The text is one argument (no shell); only text too long for an argument goes through a file.
    let input = ['-t', line.text];
    if (Buffer.byteLength(line.text) > MAX_TEXT_ARG_BYTES) {
      const textFile = join(dir, `${name}.txt`);
      await writeFile(textFile, line.text);
      input = ['-f', textFile];
    }
    const args = ['-voice', line.voice, ...input, '-o', wav];
    const { exit } = await runProgram(this.fliteBin, args, signal);
    // flite's messages may quote the text, so none of them goes into the error.
    if (exit.code !== 0) {
      throw processFailure(this.fliteBin, `rendering line ${line.index + 1} (voice ${line.voice})`, exit);
    }
    return wav;
  }

  /** Streams the lines' samples, with silence between them, into ffmpeg; writes `outputPath` atomically. */
  private async encode(
    wavs: string[],
    outputPath: string,
    signal: AbortSignal | undefined,
  ): Promise<{ duration_ms: number }> {
    // Voices may differ in rate (flite's kal is 8 kHz): all are brought to the highest.
    const rates = await Promise.all(wavs.map((wav) => wavSampleRate(wav)));
    const sampleRate = Math.max(...rates);
    const partial = `${outputPath}.${process.pid}.${randomUUID().slice(0, 8)}.partial.mp3`;
    const args = [...FFMPEG_QUIET, '-f', 's16le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0'];
    args.push('-ar', String(FLITE_MP3_SAMPLE_RATE), '-ac', '1', '-c:a', 'libmp3lame');
    args.push('-b:a', FLITE_MP3_BITRATE, '-f', 'mp3', partial);
    const child = spawn(this.ffmpegBin, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    const stderr = collectTail(child);
    const exited = childExit(child, this.ffmpegBin);
    exited.catch(() => {});
    const stdin = child.stdin as Writable;
    stdin.on('error', () => {}); // EPIPE when ffmpeg died: reported from its exit below
    const stop = () => killQuietly(child);
    signal?.addEventListener('abort', stop, { once: true });
    let samples = 0;
    try {
      const silence = Buffer.alloc(Math.round((this.pauseMs * sampleRate) / 1000) * 2);
      for (const [index, wav] of wavs.entries()) {
        if (index > 0) {
          await feed(stdin, silence, exited);
          samples += silence.length / 2;
        }
        const pcm = pcmAt(readWav(await readFile(wav), basename(wav)), sampleRate);
        await feed(stdin, pcm, exited);
        samples += pcm.length / 2;
      }
      stdin.end();
      const exit = await exited;
      if (exit.code !== 0) {
        throw processFailure(this.ffmpegBin, 'encoding the MP3', exit, lastLine(stderr()));
      }
      throwIfAborted(signal); // no output appears after a cancellation
      await rename(partial, outputPath);
      return { duration_ms: Math.round((samples * 1000) / sampleRate) };
    } catch (error) {
      killQuietly(child);
      const outcome = await exited.then(
        (exit) => ({ exit }),
        (startError: unknown) => ({ startError }),
      );
      if ('startError' in outcome) throw asGenerationFailure(outcome.startError); // e.g. no ffmpeg
      if (error instanceof FfmpegStoppedError) {
        throw processFailure(this.ffmpegBin, 'encoding the MP3', outcome.exit, lastLine(stderr()));
      }
      throw asGenerationFailure(error);
    } finally {
      signal?.removeEventListener('abort', stop);
      await rm(partial, { force: true });
    }
  }
}

/** Control characters (NUL cannot be passed as an argument at all) become spaces. */
function speakable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ').trim();
}

class FfmpegStoppedError extends Error {
  override readonly name = 'FfmpegStoppedError';
}

/** Writes with backpressure; gives up when ffmpeg is gone (its exit then says why). */
async function feed(stdin: Writable, chunk: Buffer, exited: Promise<ChildExit>): Promise<void> {
  if (stdin.destroyed || stdin.writableEnded) throw new FfmpegStoppedError('ffmpeg stopped reading');
  if (stdin.write(chunk)) return;
  const drained = await Promise.race([once(stdin, 'drain').then(() => true), exited.then(() => false)]).catch(
    () => false,
  );
  if (!drained) throw new FfmpegStoppedError('ffmpeg stopped reading');
}

interface WavLayout {
  sampleRate: number;
  /** Where the samples start and end (exclusive); the end is the data's end when the file is complete. */
  dataStart: number;
  dataEnd: number;
}

/** Finds the format and the sample data of a 16-bit mono PCM WAV file (as flite writes it). */
export function parseWav(bytes: Buffer, name = 'WAV file'): WavLayout {
  const tag = (at: number) => bytes.toString('latin1', at, at + 4);
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') {
    throw new GenerationFailedError(`${name} is not a WAV file`);
  }
  let sampleRate: number | undefined;
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (tag(offset) === 'fmt ' && body + 16 <= bytes.length) {
      const codec = bytes.readUInt16LE(body);
      const channels = bytes.readUInt16LE(body + 2);
      const bits = bytes.readUInt16LE(body + 14);
      if (codec !== 1 || bits !== 16 || channels !== 1) {
        throw new GenerationFailedError(`${name} is not 16-bit mono PCM`);
      }
      sampleRate = bytes.readUInt32LE(body + 4);
    } else if (tag(offset) === 'data') {
      if (sampleRate === undefined) throw new GenerationFailedError(`${name} has no format before its data`);
      // A streamed WAV may leave the size unset (0 or 0xFFFFFFFF): take what is there.
      const dataEnd = size === 0 || body + size > bytes.length ? bytes.length : body + size;
      return { sampleRate, dataStart: body, dataEnd: body + Math.floor((dataEnd - body) / 2) * 2 };
    }
    offset = body + size + (size % 2);
  }
  throw new GenerationFailedError(`${name} has no audio data`);
}

/** The sample rate from the first few KB of a WAV file. */
async function wavSampleRate(path: string): Promise<number> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(4096), 0, 4096, 0);
    return parseWav(buffer.subarray(0, bytesRead), basename(path)).sampleRate;
  } finally {
    await file.close();
  }
}

/** Samples of a WAV file as s16le at `sampleRate` (linear interpolation when the rate differs). */
function pcmAt(file: { bytes: Buffer; layout: WavLayout }, sampleRate: number): Buffer {
  const { bytes, layout } = file;
  const data = bytes.subarray(layout.dataStart, layout.dataEnd);
  if (layout.sampleRate === sampleRate || data.length === 0) return data;
  const count = data.length / 2;
  const ratio = layout.sampleRate / sampleRate;
  const length = Math.round(count / ratio);
  const out = Buffer.alloc(length * 2);
  for (let i = 0; i < length; i++) {
    const position = i * ratio;
    const left = Math.min(count - 1, Math.floor(position));
    const right = Math.min(count - 1, left + 1);
    const fraction = position - left;
    const value = data.readInt16LE(left * 2) * (1 - fraction) + data.readInt16LE(right * 2) * fraction;
    out.writeInt16LE(Math.round(value), i * 2);
  }
  return out;
}

function readWav(bytes: Buffer, name: string): { bytes: Buffer; layout: WavLayout } {
  return { bytes, layout: parseWav(bytes, name) };
}

interface ProgramRun {
  exit: ChildExit;
  stdout: string;
  stderr: string;
}

async function runProgram(
  program: string,
  args: string[],
  signal?: AbortSignal,
  captureStdout = false,
): Promise<ProgramRun> {
  signal?.throwIfAborted();
  const child = spawn(program, args, { stdio: ['ignore', captureStdout ? 'pipe' : 'ignore', 'pipe'] });
  let stdout = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  const stderr = collectTail(child);
  const kill = () => killQuietly(child);
  signal?.addEventListener('abort', kill, { once: true });
  try {
    const exit = await childExit(child, program);
    return { exit, stdout, stderr: stderr() };
  } catch (error) {
    throw asGenerationFailure(error);
  } finally {
    signal?.removeEventListener('abort', kill);
  }
}

function asGenerationFailure(error: unknown): GenerationFailedError {
  if (error instanceof GenerationFailedError) return error;
  if (error instanceof MissingProgramError) return new GenerationFailedError(error.message, { cause: error });
  const reason = error instanceof Error ? error.message : String(error);
  return new GenerationFailedError(`Speech synthesis failed: ${reason}`, { cause: error });
}

/** Names the program, the step and the exit, plus `detail` (never the script's text). */
function processFailure(
  program: string,
  step: string,
  exit: ChildExit,
  detail?: string,
): GenerationFailedError {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return new GenerationFailedError(`${basename(program)} ${how} while ${step}${detail ? `: ${detail}` : ''}`);
}

/** The last line ffmpeg wrote to stderr, shortened: its messages name files and codecs, not the text. */
function lastLine(stderr: string): string | undefined {
  const last = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .at(-1);
  return last && last.length > 160 ? `${last.slice(0, 160)}…` : last;
}

import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type {
  RecognitionHints,
  RecognitionProgress,
  RecognitionResult,
  RecognizedWord,
} from '../../../ports/speech-to-text.ts';
import { recognitionFromVerboseJson } from '../../openai/verbose-json.ts';
import { throwIfAborted } from '../abort.ts';
import { inIdleClass, runInBackground } from '../background-priority.ts';
import { type Chunk, chunkRange, DEFAULT_OVERLAP_MS, mergeChunkWords, planChunks } from '../chunking.ts';
import { type CpuSlots, recognizerSlots } from '../cpu-slots.ts';
import {
  type DecodedPcmSpeechToText,
  type DecodedRecording,
  type DecodeOptions,
  decodeRecording,
  pcmByteRange,
} from '../decoded-recording.ts';
import { childExit, collectTail, PCM_BYTES_PER_MS } from '../ffmpeg.ts';
import { boundariesAtPauses } from '../pause-boundaries.ts';
import { killProgramTree, OWN_PROCESS_GROUP } from '../program-tree.ts';
import { type ProgressCallback, ProgressReporter } from '../progress-reporter.ts';
import { recognizeInSlots } from '../recognition-in-slots.ts';
import { combinePresence, type SpeechPresence, SpeechPresenceMeter } from '../speech-presence.ts';
import { runnableEntry, threadEntry } from '../threads/thread-entry.ts';
import { loadWhisperApi } from './whisper-c-api.ts';
import type { WhisperHeard, WhisperJob, WhisperMessage, WhisperPiece } from './whisper-protocol.ts';

export interface WhisperOptions extends DecodeOptions {
  /** The ggml model file (`ggml-base.en.bin`, ...): present and checked before this engine is made. */
  modelPath: string;
  /** Multilingual models detect the language (`auto`) unless one is named; `.en` models hear `en`. */
  language: string;
  /** Recordings at least 1.5 x this long are cut into chunks heard in parallel. Default 2 minutes. */
  chunkMs?: number;
  /** Audio read past each side of a chunk, so boundary words are heard whole. Default 2 s. */
  chunkOverlapMs?: number;
  /** Chunks of one recording heard at once, each by its own process. Default: the number of cores. */
  concurrency?: number;
  /** whisper.cpp processes running at once across all recordings. Default `recognizerSlots`. */
  slots?: CpuSlots;
  /** Threads of each whisper.cpp process. Default 1: the slots share the cores out, one each. */
  threads?: number;
  progressIntervalMs?: number;
}

/**
 * Two minutes: chunks are the turns recordings take at the recognisers (cpu-slots.ts), so shorter
 * is fairer, but each Whisper chunk loads the model in its own process and pads its last 30 s
 * window, a cost pocketsphinx's one-minute chunks do not have (not measured: no real weights here).
 */
export const WHISPER_CHUNK_MS = 120_000;

/** Where the whisper.cpp process loads whisper.cpp from, and the FFI it calls its C API with. */
export interface WhisperBinding {
  /** The prebuilt native module, `index.node` of `@fugood/node-whisper-<platform>-<arch>`. */
  path: string;
  /** koffi's entry file. */
  koffi: string;
}

let bindingFound: WhisperBinding | { problem: string } | undefined;

/**
 * The binding's prebuilt native module for this platform and koffi, both installed and whisper.cpp's
 * API in the module laid out as whisper-c-api.ts declares it; or a message saying what is missing.
 * Only linux-x64 is in the lockfile (the registry mirror this project is built with carries no
 * other); elsewhere `npm install` of the platform's package adds it. Checked once a process.
 */
export function whisperBinding(): WhisperBinding | { problem: string } {
  bindingFound ??= findWhisperBinding();
  return bindingFound;
}

function findWhisperBinding(): WhisperBinding | { problem: string } {
  const require = createRequire(import.meta.url);
  const name = `@fugood/node-whisper-${process.platform}-${process.arch}`;
  let binding: WhisperBinding;
  try {
    binding = { path: require.resolve(name), koffi: require.resolve('koffi') };
  } catch {
    return {
      problem: `whisper.cpp's prebuilt binding for ${process.platform}-${process.arch} is not installed (npm install --no-save ${name}@1.1.3 koffi@3.3.4)`,
    };
  }
  try {
    loadWhisperApi(require(binding.koffi), binding.path);
    return binding;
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Local Whisper (whisper.cpp): the recording is decoded once to PCM (decoded-recording.ts), long ones
 * cut into chunks at pauses with an overlap (chunking.ts, pause-boundaries.ts), and each chunk heard by a whisper.cpp process of its
 * own in the idle scheduling class, holding one of the recogniser slots as pocketsphinx does.
 * Punctuation, casing and the language come from Whisper; word times from its token timestamps.
 * Silence, music and tones: whisper.cpp drops a window its no-speech probability calls silence, and
 * the speech-presence check (speech-presence.ts) clears what it invents anyway.
 */
export class WhisperSpeechToText implements DecodedPcmSpeechToText {
  constructor(private readonly options: WhisperOptions) {}

  async transcribe(
    audioPath: string,
    onProgress?: ProgressCallback,
    _hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const progress = new ProgressReporter(onProgress, this.options.progressIntervalMs ?? 250);
    await progress.report({ stage: 'decoding' });
    const recording = await this.decode(audioPath, signal);
    try {
      return await this.recognize(recording, progress, signal);
    } finally {
      await recording.remove();
    }
  }

  decode(audioPath: string, signal?: AbortSignal): Promise<DecodedRecording> {
    return decodeRecording(audioPath, this.options, signal);
  }

  transcribeDecoded(
    recording: DecodedRecording,
    onProgress?: ProgressCallback,
    _hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const progress = new ProgressReporter(onProgress, this.options.progressIntervalMs ?? 250);
    return this.recognize(recording, progress, signal);
  }

  private async recognize(
    recording: DecodedRecording,
    progress: ProgressReporter,
    signal: AbortSignal | undefined,
  ): Promise<RecognitionResult> {
    throwIfAborted(signal);
    const binding = bindingOrThrow();
    const overlapMs = this.options.chunkOverlapMs ?? DEFAULT_OVERLAP_MS;
    const planned = planChunks(recording.durationMs, {
      chunkMs: this.options.chunkMs ?? WHISPER_CHUNK_MS,
      overlapMs,
    });
    const chunks = await boundariesAtPauses(recording.path, planned, overlapMs);
    const heard = chunks.map(() => 0);
    const recognizing = (): RecognitionProgress => {
      const fraction = heard.reduce((sum, part) => sum + part, 0) / chunks.length;
      return { stage: 'recognizing', fraction: Math.min(0.99, fraction) };
    };
    const results = await recognizeInSlots({
      chunks,
      engine: 'whisper',
      slots: this.options.slots ?? recognizerSlots,
      concurrency: this.options.concurrency ?? Math.max(1, availableParallelism()),
      progress,
      recognizing,
      signal,
      hear: async (chunk, chunkSignal) => {
        const result = await this.hearChunk(recording, chunk, chunks.length, binding, chunkSignal, (part) => {
          heard[chunk.index] = part;
          progress.tick(recognizing());
        });
        heard[chunk.index] = 1;
        return { chunk, ...result };
      },
    });
    throwIfAborted(signal);
    await progress.report({ stage: 'recognizing', fraction: 1 });
    const duration_ms = Math.round(recording.durationMs);
    const words = mergeChunkWords(results);
    const presence = combinePresence(results.map((result) => result.presence));
    const language = mostHeardLanguage(results) ?? this.options.language;
    // Words in audio the speech check finds no speech in are invented (Whisper writes "Thank you." over
    // music): none are kept.
    if (words.length === 0 || presence.verdict === 'absent') {
      return { words: [], duration_ms, notice: 'no_speech', ...(language === 'auto' ? {} : { language }) };
    }
    return { words, duration_ms, ...(language === 'auto' ? {} : { language }) };
  }

  /** One chunk, heard by its own whisper.cpp process; its speech presence measured on the way. */
  private async hearChunk(
    recording: DecodedRecording,
    chunk: Chunk,
    count: number,
    binding: WhisperBinding,
    signal: AbortSignal,
    onFraction: (fraction: number) => void,
  ): Promise<{ words: RecognizedWord[]; presence: SpeechPresence; language?: string }> {
    const range = chunkRange(chunk, count);
    const bytes = pcmByteRange(range);
    const job: WhisperJob = {
      binding: binding.path,
      koffi: binding.koffi,
      model: this.options.modelPath,
      pcm: recording.path,
      start: bytes.start,
      ...(bytes.end === undefined ? {} : { end: bytes.end }),
      language: this.options.language,
      threads: this.options.threads ?? 1,
    };
    const [heard, presence] = await Promise.all([
      runWhisperProcess(job, signal, onFraction),
      measurePresence(recording.path, bytes, signal),
    ]);
    const expectedSamples =
      ((bytes.end ?? recording.durationMs * PCM_BYTES_PER_MS - 1) + 1 - bytes.start) / 2;
    if (Math.abs(heard.samples - expectedSamples) > 1) {
      throw new Error(`whisper.cpp heard ${heard.samples} samples of the ${expectedSamples} sent`);
    }
    const lengthMs = (range.durationMs ?? recording.durationMs - range.startMs) / 1000;
    const { words } = recognitionFromVerboseJson({
      duration: Math.max(0, lengthMs),
      segments: [{ text: '', start: 0, end: Math.max(0, lengthMs), words: heard.pieces.map(toTimedPiece) }],
    });
    const onRecordingClock = words.map((word) => ({
      ...word,
      start_ms: word.start_ms + range.startMs,
      end_ms: word.end_ms + range.startMs,
    }));
    return { words: onRecordingClock, presence, ...(heard.language ? { language: heard.language } : {}) };
  }
}

function bindingOrThrow(): WhisperBinding {
  const binding = whisperBinding();
  if ('problem' in binding) throw new Error(binding.problem);
  return binding;
}

function toTimedPiece(piece: WhisperPiece) {
  return {
    word: piece.text,
    start: Math.max(0, piece.t0) / 1000,
    end: Math.max(0, piece.t1) / 1000,
    probability: piece.probability,
  };
}

/** The language most chunks were heard in (a multilingual model detects it per chunk). */
function mostHeardLanguage(results: readonly { language?: string; words: readonly unknown[] }[]) {
  const weights = new Map<string, number>();
  for (const { language, words } of results) {
    if (language) weights.set(language, (weights.get(language) ?? 0) + words.length + 1);
  }
  return [...weights.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

async function measurePresence(
  pcmPath: string,
  bytes: { start: number; end?: number },
  signal: AbortSignal,
): Promise<SpeechPresence> {
  const meter = new SpeechPresenceMeter();
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  await pipeline(createReadStream(pcmPath, bytes), meter.stage(), discard, { signal });
  return meter.result();
}

const WHISPER_PROCESS = threadEntry(import.meta.url, 'whisper-process');

/** Runs whisper-process.ts on `job`; killed (with what it started) when `signal` aborts. */
async function runWhisperProcess(
  job: WhisperJob,
  signal: AbortSignal,
  onFraction: (fraction: number) => void,
): Promise<WhisperHeard> {
  signal.throwIfAborted();
  const script = fileURLToPath(runnableEntry(WHISPER_PROCESS));
  const [command, args] = await inIdleClass(process.execPath, [script]);
  signal.throwIfAborted();
  const child = runInBackground(
    spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: OWN_PROCESS_GROUP }),
  );
  const stderr = collectTail(child);
  const stop = () => killProgramTree(child);
  signal.addEventListener('abort', stop, { once: true });
  child.stdin.end(JSON.stringify(job));
  let result: WhisperHeard | undefined;
  let failure: string | undefined;
  try {
    const reading = (async () => {
      for await (const line of createInterface({
        input: child.stdout,
        crlfDelay: Number.POSITIVE_INFINITY,
      })) {
        const message = JSON.parse(line) as WhisperMessage;
        if ('progress' in message) onFraction(Math.min(1, Math.max(0, message.progress)));
        else if ('result' in message) result = message.result;
        else failure = message.error;
      }
    })();
    const [exit] = await Promise.all([childExit(child, 'whisper.cpp'), reading]);
    if (signal.aborted) throw signal.reason;
    if (result) return result;
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const detail = failure ?? stderr().trim().split('\n').at(-1) ?? '';
    throw new Error(
      `whisper.cpp ${how} without a result${detail ? `: ${detail.slice(0, 200)}` : ' (is the model a whisper.cpp ggml model?)'}`,
    );
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

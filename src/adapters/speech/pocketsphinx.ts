import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { readableWords } from '../../domain/readable-words.ts';
import type {
  RecognitionHints,
  RecognitionProgress,
  RecognitionResult,
  RecognizedWord,
} from '../../ports/speech-to-text.ts';
import { throwIfAborted } from './abort.ts';
import { inIdleClass, runInBackground } from './background-priority.ts';
import { chunkRange, mergeChunkWords, type PcmRange, planChunks } from './chunking.ts';
import { type CpuSlots, recognizerSlots } from './cpu-slots.ts';
import {
  type DecodedPcmSpeechToText,
  type DecodedRecording,
  type DecodeOptions,
  decodeRecording,
  pcmByteRange,
} from './decoded-recording.ts';
import {
  type ChildExit,
  childExit,
  collectTail,
  lowNoisePcm,
  MissingProgramError,
  PCM_BYTES_PER_MS,
} from './ffmpeg.ts';
import { dictionaryForModel } from './model-dictionary.ts';
import { killProgramTree, OWN_PROCESS_GROUP } from './program-tree.ts';
import { type ProgressCallback, ProgressReporter } from './progress-reporter.ts';
import { recognizeInSlots } from './recognition-in-slots.ts';
import { recordingNotice } from './recognition-notice.ts';
import { combinePresence, type SpeechPresence, SpeechPresenceMeter } from './speech-presence.ts';
import { UtteranceLimiter } from './utterance-limiter.ts';

export interface PocketsphinxOptions extends DecodeOptions {
  /** Default `pocketsphinx_continuous` (Debian package `pocketsphinx`). */
  pocketsphinxPath?: string;
  /** Holds `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict` (Debian `pocketsphinx-en-us`). */
  modelDir?: string;
  /** Decoder tuning flags; replaces `DEFAULT_DECODER_ARGS`. */
  decoderArgs?: readonly string[];
  /** Minimum time between progress reports while recognising. */
  progressIntervalMs?: number;
  /** Longest stretch fed to pocketsphinx without a pause; see `UtteranceLimiter`. Default 30 s. */
  maxUtteranceMs?: number;
  /**
   * Recordings at least 1.5 x this long (by the decoded duration) are cut into chunks of about this
   * length, recognised in parallel. Default 1 minute; see `planChunks`.
   */
  chunkMs?: number;
  /** Audio read past each side of a chunk, so boundary words are heard whole. Default 2 s. */
  chunkOverlapMs?: number;
  /**
   * Where the dictionary of the model's words (`dictionaryForModel`) is kept, made once and reused
   * by every run: no user data. Default: the OS temp dir.
   */
  dictionaryCacheDir?: string;
  /**
   * Chunks of this recording recognised at once, each by its own pocketsphinx. Default: the
   * number of cores. Every chunk also holds one of `slots` while it runs.
   */
  concurrency?: number;
  /** Recognisers running at once across all recordings of this process. Default `recognizerSlots`. */
  slots?: CpuSlots;
  /**
   * Whether the audio is checked for speech (speech-presence.ts) so that a recording without any
   * comes back with no words and a `no_speech` notice. Default true; the bench turns it off to show
   * what the recogniser makes of such recordings.
   */
  speechPresenceCheck?: boolean;
}

/** Debian's `pocketsphinx-en-us`. */
export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/**
 * Chosen on real speech (`npm run bench -- recogniser`, bench/recogniser-settings.ts; table in
 * docs/transcripts.md): on the LibriVox tuning set no decoder setting gained more than one word
 * (2.2 %) over pocketsphinx's defaults, so the cheapest setting that ties was taken: without the
 * second, flat-lexicon search pass the tuning WER stays 28.9 %, flite stays 9.0 %, and CPU per second
 * of audio falls (against pocketsphinx's defaults, best of three runs: 0.26 -> 0.17 on the tuning
 * set, 0.19 -> 0.16 on flite). The former `-lw 5` changed no output: the final hypothesis comes from
 * the lattice pass, which has its own weight (`-bestpathlw`). `-topn 8` cost more CPU for no gain.
 */
export const DEFAULT_DECODER_ARGS: readonly string[] = ['-fwdflat', 'no'];

/**
 * Local, offline recogniser: ffmpeg decodes the recording once to a PCM file (decoded-recording.ts),
 * which is streamed into pocketsphinx_continuous. Long recordings are cut into chunks, each read from
 * that file by its own recogniser, so memory stays that of `concurrency` short recordings and several
 * cores are used.
 */
export class PocketsphinxSpeechToText implements DecodedPcmSpeechToText {
  constructor(private readonly options: PocketsphinxOptions = {}) {}

  /** Decodes once (`decodeRecording`), recognises the decoded file, and removes it in every outcome. */
  async transcribe(
    audioPath: string,
    onProgress?: ProgressCallback,
    _hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const progress = new ProgressReporter(onProgress, this.options.progressIntervalMs ?? 250);
    await progress.report({ stage: 'decoding' });
    const modelArgs = await this.modelArgs(); // checks the model before decoding, as decode() does
    const recording = await decodeRecording(audioPath, this.options, signal);
    try {
      return await this.recognizeDecoded(recording, modelArgs, progress, signal);
    } finally {
      await recording.remove();
    }
  }

  /** Checks the model first: a missing one is said before minutes of decoding, not after. */
  async decode(audioPath: string, signal?: AbortSignal): Promise<DecodedRecording> {
    await this.checkModel();
    return decodeRecording(audioPath, this.options, signal);
  }

  async transcribeDecoded(
    recording: DecodedRecording,
    onProgress?: ProgressCallback,
    _hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const progress = new ProgressReporter(onProgress, this.options.progressIntervalMs ?? 250);
    return this.recognizeDecoded(recording, await this.modelArgs(), progress, signal);
  }

  private async recognizeDecoded(
    recording: DecodedRecording,
    modelArgs: string[],
    progress: ProgressReporter,
    signal: AbortSignal | undefined,
  ): Promise<RecognitionResult> {
    throwIfAborted(signal);
    // The decoded length is exact, so even a recording that states no duration (a browser's streamed
    // WebM) is cut into chunks for every core.
    const chunks = planChunks(recording.durationMs, {
      chunkMs: this.options.chunkMs,
      overlapMs: this.options.chunkOverlapMs,
    });
    const fed = chunks.map(() => 0);
    const totalMs = chunks.reduce((sum, chunk) => sum + chunk.endMs - chunk.startMs, 0);
    // The fed position runs ahead of the recogniser by what the socket and pipe buffers hold (~10 s of
    // audio): coarse for short clips, accurate enough for the long ones where progress matters.
    const recognizing = (): RecognitionProgress => {
      const fedMs = fed.reduce((sum, ms) => sum + ms, 0);
      return totalMs > 0
        ? { stage: 'recognizing', fraction: Math.min(0.99, fedMs / totalMs) }
        : { stage: 'recognizing' };
    };
    const results = await recognizeInSlots({
      chunks,
      engine: 'pocketsphinx',
      slots: this.options.slots ?? recognizerSlots,
      concurrency: this.options.concurrency ?? Math.max(1, availableParallelism()),
      progress,
      recognizing,
      signal,
      hear: async (chunk, chunkSignal) => {
        const lengthMs = chunk.endMs - chunk.startMs;
        // A lone chunk gets `{ startMs: 0 }`: the whole file, read exactly as before chunking.
        const range = chunkRange(chunk, chunks.length);
        const result = await this.recognize(recording.path, modelArgs, range, chunkSignal, (positionMs) => {
          fed[chunk.index] = Math.min(positionMs, lengthMs);
          progress.tick(recognizing());
        });
        fed[chunk.index] = lengthMs;
        return { chunk, ...result };
      },
    });
    const duration_ms = Math.round(recording.durationMs);
    const words = mergeChunkWords(results);
    throwIfAborted(signal);
    await progress.report({ stage: 'recognizing', fraction: 1 });
    const presence = combinePresence(results.map((result) => result.presence));
    const checked =
      this.options.speechPresenceCheck === false ? { ...presence, verdict: 'unknown' as const } : presence;
    const notice = recordingNotice(words, checked);
    if (notice === 'no_speech') return { words: [], duration_ms, notice };
    // pocketsphinx spells every number out; figures read better where the reading is certain.
    const readable = readableWords(words).map((word) => clampWord(word, duration_ms));
    return { words: readable, duration_ms, ...(notice ? { notice } : {}) };
  }

  /** The model's files, once each is known to exist. */
  private async checkModel(): Promise<{ hmm: string; lm: string; dict: string }> {
    const dir = this.options.modelDir ?? DEFAULT_MODEL_DIR;
    const hmm = join(dir, 'en-us');
    const lm = join(dir, 'en-us.lm.bin');
    const dict = join(dir, 'cmudict-en-us.dict');
    // pocketsphinx fails silently with its log sent to /dev/null, so say what is missing up front.
    await Promise.all([hmm, lm, dict].map((path) => access(path))).catch(() => {
      throw new Error(`pocketsphinx model not found in ${dir} (install pocketsphinx-en-us or set modelDir)`);
    });
    return { hmm, lm, dict };
  }

  private async modelArgs(): Promise<string[]> {
    const { hmm, lm, dict } = await this.checkModel();
    const modelWordsOnly = await dictionaryForModel(dict, lm, this.options.dictionaryCacheDir ?? tmpdir());
    return ['-hmm', hmm, '-lm', lm, '-dict', modelWordsOnly];
  }

  /** Recognises the decoded PCM file or one `range` of it; word times are on the recording's clock. */
  private async recognize(
    pcmPath: string,
    modelArgs: string[],
    range: PcmRange,
    signal: AbortSignal,
    onPosition: (positionMs: number) => void,
  ): Promise<{ words: RecognizedWord[]; presence: SpeechPresence }> {
    const offsetMs = range.startMs;
    const program = this.options.pocketsphinxPath ?? 'pocketsphinx_continuous';
    const decoderArgs = this.options.decoderArgs ?? DEFAULT_DECODER_ARGS;
    const args = ['-infile', '/dev/stdin', '-time', 'yes', '-logfn', '/dev/null'];
    args.push(...modelArgs, ...decoderArgs);
    // In the service's session (program-tree.ts) a terminal's Ctrl-C, or a SIGTERM sent to the service's
    // process group, reaches these programs too: they ignore both (inherited through exec), as the
    // runtime drains on them and stops its work itself (abort: SIGKILL).
    const script = `trap '' INT TERM; cat | exec "$0" "$@"`;
    const [command, commandArgs] = await inIdleClass('sh', ['-c', script, program, ...args]);
    signal.throwIfAborted(); // aborted while `chrt` was first checked: start nothing
    // Opened before the recogniser starts (a range it refuses throws here, leaving no process) and
    // after the last wait (an open error must find the pipeline listening).
    const pcm = createReadStream(pcmPath, pcmByteRange(range));
    // Node gives a child a socket, not a pipe, as stdin, and open("/dev/stdin") fails on a socket
    // (ENXIO). `cat |` turns it into a real pipe; `$0 "$@"` avoids any shell quoting of paths.
    // A failure kills cat and pocketsphinx together (program-tree.ts says how, and why no session).
    const recognizer = runInBackground(
      spawn(command, commandArgs, {
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: OWN_PROCESS_GROUP,
      }),
    );
    const recognizerStderr = collectTail(recognizer);
    let killed = false;
    const stopAll = () => {
      killed = true;
      pcm.destroy();
      killProgramTree(recognizer);
    };
    // Another chunk failed: its error is the one reported, this chunk only has to stop.
    signal.addEventListener('abort', stopAll, { once: true });

    // The audio is checked for speech as it streams past, before the limiter inserts any pause.
    const meter = new SpeechPresenceMeter();
    const limiter = new UtteranceLimiter({
      maxUtteranceMs: this.options.maxUtteranceMs ?? 30_000,
      pauseMs: insertedPauseMs(decoderArgs),
      onInput: (bytes) => onPosition(bytes / PCM_BYTES_PER_MS),
    });
    // pocketsphinx 5prealpha mistimes a stream that opens mid-word (measured: every word of a chunk
    // 8.7 s late); a pause in front, as a recording normally has, keeps its clock right.
    const leadIn = offsetMs > 0 ? lowNoisePcm(insertedPauseMs(decoderArgs)) : Buffer.alloc(0);
    const leadInMs = leadIn.length / PCM_BYTES_PER_MS;
    const toRecordingMs = (ms: number) => offsetMs + limiter.toOriginalMs(Math.max(0, ms - leadInMs));
    const words: RecognizedWord[] = [];
    const reading = (async () => {
      // Only word-timing lines are kept; the per-utterance hypothesis lines are redundant.
      for await (const line of createInterface({
        input: recognizer.stdout,
        crlfDelay: Number.POSITIVE_INFINITY,
      })) {
        const word = parseWordLine(line);
        if (word)
          words.push({ ...word, start_ms: toRecordingMs(word.start_ms), end_ms: toRecordingMs(word.end_ms) });
      }
    })();
    // Kill both children only when the root cause is certain; otherwise let the broken pipes end them,
    // so that a recogniser crash is not mistaken for a consequence of our own kill.
    const stopOnFailure = <T>(promise: Promise<T>, when: (error: unknown) => boolean = () => true) =>
      promise.catch((error: unknown) => {
        if (when(error)) stopAll();
        throw error;
      });

    const [piped, exited, read] = await Promise.allSettled([
      pipeline(pcm, meter.stage(), limiter, prepend(leadIn), recognizer.stdin),
      stopOnFailure(childExit(recognizer, 'sh')),
      stopOnFailure(reading),
    ]);
    signal.removeEventListener('abort', stopAll);
    if (signal.aborted) throw signal.reason;
    // Report the root cause, not the broken pipes it left behind.
    if (exited.status === 'rejected') throw exited.reason;
    const exitError = recognizerFailure(program, exited.value, recognizerStderr(), killed);
    if (exitError) throw exitError;
    for (const outcome of [piped, read]) if (outcome.status === 'rejected') throw outcome.reason;
    return { words, presence: meter.result() };
  }
}

/** A pipeline stage that sends `head` first: the lead-in pause goes after the limiter, off its clock. */
function prepend(head: Buffer) {
  return async function* (pcm: AsyncIterable<Buffer>) {
    yield head;
    yield* pcm;
  };
}

/** `sh` exits 127/126 when it cannot find/execute the program it was asked to exec. */
function recognizerFailure(
  program: string,
  exit: ChildExit,
  stderr: string,
  killed: boolean,
): Error | undefined {
  if (exit.code === 0) return undefined;
  if (exit.code === 127 || exit.code === 126) {
    return new MissingProgramError(
      `Cannot run ${program}: is the pocketsphinx package installed and on PATH?`,
    );
  }
  if (killed) return undefined; // Stopped by us because something else failed first.
  const detail = stderr.trim().split('\n').at(-1) ?? '';
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return new Error(`${program} ${how}${detail ? `: ${detail.slice(0, 160)}` : ''}`);
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;
/** `<s>`, `</s>`, `<sil>`, `[NOISE]`, `[SPEECH]`, `++UM++`-style fillers are not words. */
const FILLER = /^(<.*>|\[.*\]|\+\+.*\+\+)$/;

/**
 * Parses one `-time yes` output line (`word start_s end_s posterior`) into a word, or `undefined` for
 * hypothesis lines and fillers. `word(2)` names a pronunciation variant of `word`. The last column is
 * the word's posterior probability in the decoder's lattice (pocketsphinx 5prealpha prints
 * `logmath_exp(ps_seg_prob)`), the share of the lattice's paths through that word: its confidence.
 */
export function parseWordLine(line: string): RecognizedWord | undefined {
  const match = WORD_LINE.exec(line.trim());
  if (!match) return undefined;
  const [, token = '', start = '0', end = '0', posterior = 'NaN'] = match;
  if (FILLER.test(token)) return undefined;
  const text = token.replace(/\(\d+\)$/, '');
  if (text === '') return undefined;
  const word = { text, start_ms: Math.round(Number(start) * 1000), end_ms: Math.round(Number(end) * 1000) };
  const confidence = Number(posterior);
  return Number.isFinite(confidence) ? { ...word, confidence: Math.min(1, Math.max(0, confidence)) } : word;
}

function clampWord(word: RecognizedWord, durationMs: number): RecognizedWord {
  const end_ms = Math.min(word.end_ms, durationMs);
  return { ...word, start_ms: Math.min(word.start_ms, end_ms), end_ms };
}

/** Pause that pocketsphinx's VAD (`-vad_postspeech` frames of 10 ms, default 50) takes as an utterance end. */
function insertedPauseMs(decoderArgs: readonly string[]): number {
  const index = decoderArgs.indexOf('-vad_postspeech');
  const frames = index >= 0 ? Number(decoderArgs[index + 1]) : 50;
  return (Number.isFinite(frames) ? frames : 50) * 10 + 200;
}

import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TRANSCRIPTION_STAGES } from '../../../domain/job.ts';
import type { RecognitionHints, RecognitionResult } from '../../../ports/speech-to-text.ts';
import type { DecodedPcmSpeechToText, DecodedRecording } from '../decoded-recording.ts';
import type { ProgressCallback } from '../progress-reporter.ts';
import { readWhisperState, STATE_FILE, type WhisperState } from './whisper-provision.ts';
import type { WhisperOptions } from './whisper-speech-to-text.ts';
import { WhisperSpeechToText } from './whisper-speech-to-text.ts';

export interface ProvisionedOptions {
  /** `auto`: pocketsphinx, with a notice, when Whisper cannot run; `whisper`: the job fails instead. */
  mode: 'auto' | 'whisper';
  /** Where the runtime writes the Whisper state (whisper-provision.ts). */
  modelDir: string;
  /** `NOTES_WHISPER_MODEL`, named when the runtime wrote no state at all. */
  model: string;
  /** `NOTES_WHISPER_LANGUAGE`, for multilingual models. */
  language?: string;
  whisper: Omit<WhisperOptions, 'modelPath' | 'language'>;
  fallback: DecodedPcmSpeechToText;
  /** How often the state is read again while the model is being fetched. */
  pollMs?: number;
  /** How long a missing state may stay missing before Whisper counts as unavailable. Default 60 s. */
  unreportedMs?: number;
}

/** A job that finds Whisper unavailable when it was configured explicitly: say why, never switch. */
export class WhisperUnavailableError extends Error {
  override readonly name = 'WhisperUnavailableError';
}

/**
 * The local default engine: Whisper once the runtime has made its model usable, the fallback
 * (pocketsphinx) when it cannot be, each transcript saying which engine made it (`engine`) and, after
 * a fallback, why and how to get Whisper (`fallback`, shown as the transcript's notice). A job that
 * arrives while the model is still being fetched waits for it, showing the fetch as its stage.
 */
export class ProvisionedSpeechToText implements DecodedPcmSpeechToText {
  private whisper: { path: string; engine: WhisperSpeechToText } | undefined;

  constructor(private readonly options: ProvisionedOptions) {}

  async transcribe(
    audioPath: string,
    onProgress?: ProgressCallback,
    hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const choice = await this.choose(onProgress, signal);
    return labelled(choice, await choice.engine.transcribe(audioPath, onProgress, hints, signal));
  }

  /** Both engines decode the same way (decoded-recording.ts): the fallback's decoder serves. */
  decode(audioPath: string, signal?: AbortSignal): Promise<DecodedRecording> {
    return this.options.fallback.decode(audioPath, signal);
  }

  async transcribeDecoded(
    recording: DecodedRecording,
    onProgress?: ProgressCallback,
    hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const choice = await this.choose(onProgress, signal);
    return labelled(choice, await choice.engine.transcribeDecoded(recording, onProgress, hints, signal));
  }

  private async choose(
    onProgress: ProgressCallback | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Choice> {
    const state = await this.settledState(onProgress, signal);
    if (state.state === 'ready') {
      if (this.whisper?.path !== state.path) {
        const language = state.multilingual ? (this.options.language ?? 'auto') : 'en';
        this.whisper = {
          path: state.path,
          engine: new WhisperSpeechToText({ ...this.options.whisper, modelPath: state.path, language }),
        };
      }
      // A model given as a path is named by its file: the transcript carries no path of this machine.
      return { engine: this.whisper.engine, name: `whisper.cpp:${basename(state.model)}` };
    }
    const why = `Whisper (${state.model}) is unavailable: ${state.reason}`;
    if (this.options.mode === 'whisper') throw new WhisperUnavailableError(`${why}; ${state.remedy}.`);
    return {
      engine: this.options.fallback,
      name: 'local-pocketsphinx',
      fallback: `${why}. This transcript was made by pocketsphinx, which is far less accurate. To get Whisper: ${state.remedy}; then transcribe this note again.`,
    };
  }

  /** The state once it is `ready` or `unavailable`, reporting a fetch in progress as the job's stage. */
  private async settledState(
    onProgress: ProgressCallback | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Extract<WhisperState, { state: 'ready' | 'unavailable' }>> {
    const since = Date.now();
    for (;;) {
      const state = await readWhisperState(this.options.modelDir);
      if (state?.state === 'ready' || state?.state === 'unavailable') return state;
      // The runtime writes a state within moments of starting; none for this long means it could not
      // (an unwritable models folder): say so rather than wait forever.
      if (!state && Date.now() - since > (this.options.unreportedMs ?? 60_000)) {
        return {
          state: 'unavailable',
          model: this.options.model,
          reason: `no state was written to ${STATE_FILE} in the models folder`,
          remedy: "check that the service can write NOTES_WHISPER_MODEL_DIR (see the service's log)",
        };
      }
      if (state?.state === 'fetching') {
        await onProgress?.({
          stage: TRANSCRIPTION_STAGES.fetchingModel,
          ...(state.progress.fraction === undefined ? {} : { fraction: state.progress.fraction }),
        });
      }
      await sleep(this.options.pollMs ?? 1000, undefined, signal ? { signal } : {});
    }
  }
}

interface Choice {
  engine: DecodedPcmSpeechToText;
  name: string;
  fallback?: string;
}

function labelled(choice: Choice, result: RecognitionResult): RecognitionResult {
  return { ...result, engine: choice.name, ...(choice.fallback ? { fallback: choice.fallback } : {}) };
}

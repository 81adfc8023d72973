import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelFetchProgress } from '../adapters/models/model-fetch.ts';
import { whisperModelDir } from '../adapters/speech/whisper/whisper-models.ts';
import {
  provisionWhisper,
  STATE_FILE,
  type WhisperState,
} from '../adapters/speech/whisper/whisper-provision.ts';
import { loadConfigFrom } from '../config.ts';
import type { ReadinessCheck } from './readiness.ts';

/** What `/readyz` says of the speech engine, beside its checks. */
export interface SpeechEngineStatus {
  /** `NOTES_SPEECH_ENGINE`. */
  setting: string;
  /** The engine transcripts are made with now (or will be, once `state` settles). */
  engine: 'whisper' | 'pocketsphinx' | 'amazon-transcribe' | 'openai-compatible';
  /** Whisper's: `checking`, `fetching`, `ready`, `unavailable`; absent for other engines. */
  state?: WhisperState['state'];
  model?: string;
  progress?: ModelFetchProgress;
  /** Why Whisper is unavailable, and what to do. */
  reason?: string;
}

export interface SpeechEngineStart {
  /** One line for the start banner. */
  banner(): string;
  status(): SpeechEngineStatus;
  /** Fails while an explicitly configured Whisper cannot transcribe (yet): never a silent switch. */
  check: ReadinessCheck;
}

/**
 * Prepares the configured speech engine as `npm start` begins: with `auto` (the default) or `whisper`,
 * the Whisper model is found or fetched in the background (whisper-provision.ts), its progress and
 * outcome said in the console; the queue workers read the outcome (provisioned-speech-to-text.ts).
 */
export function startSpeechEngine(
  log: (line: string) => void,
  /** Models that came with the installation (the container image's), looked in first. */
  installedModelsDir: string,
): SpeechEngineStart {
  const config = loadConfigFrom(process.env);
  const setting = config.NOTES_SPEECH_ENGINE;
  if (setting !== 'auto' && setting !== 'whisper') {
    const engine =
      setting === 'local'
        ? 'pocketsphinx'
        : setting === 'transcribe'
          ? 'amazon-transcribe'
          : 'openai-compatible';
    return {
      banner: () =>
        setting === 'local'
          ? 'pocketsphinx (NOTES_SPEECH_ENGINE=local; Whisper is the default: NOTES_SPEECH_ENGINE=auto)'
          : `${engine} (NOTES_SPEECH_ENGINE=${setting})`,
      status: () => ({ setting, engine }),
      check: async () => null,
    };
  }
  const dir = whisperModelDir(config);
  // A state left by an earlier run says nothing about this one: the workers wait for this run's.
  rmSync(join(dir, STATE_FILE), { force: true });
  let state: WhisperState = { state: 'checking', model: config.NOTES_WHISPER_MODEL };
  const progressLine = throttledProgress(log);
  provisionWhisper({
    model: config.NOTES_WHISPER_MODEL,
    dir,
    ...(config.NOTES_WHISPER_MODEL_URL ? { baseUrl: config.NOTES_WHISPER_MODEL_URL } : {}),
    installedDir: installedModelsDir,
    onState: (next) => {
      const wasFetching = state.state === 'fetching';
      state = next;
      if (next.state === 'fetching') progressLine(next.model, next.progress);
      if (next.state === 'ready' && wasFetching)
        log(`Whisper ${next.model}: model fetched; transcribing with Whisper`);
      if (next.state === 'unavailable') log(unavailableLine(setting, next));
    },
  }).catch((error: unknown) => {
    state = {
      state: 'unavailable',
      model: config.NOTES_WHISPER_MODEL,
      reason: error instanceof Error ? error.message : String(error),
      remedy: 'see the log above',
    };
    log(unavailableLine(setting, state));
  });
  return {
    banner: () => whisperBanner(setting, state),
    status: () => ({
      setting,
      engine: state.state === 'unavailable' && setting === 'auto' ? 'pocketsphinx' : 'whisper',
      state: state.state,
      model: state.model,
      ...(state.state === 'fetching' ? { progress: state.progress } : {}),
      ...(state.state === 'unavailable' ? { reason: `${state.reason}; ${state.remedy}` } : {}),
    }),
    check: async () => {
      if (setting === 'auto' || state.state === 'ready') return null;
      if (state.state === 'unavailable')
        return `Whisper (NOTES_SPEECH_ENGINE=whisper) cannot run: ${state.reason}`;
      return state.state === 'fetching'
        ? `fetching the Whisper model ${state.model}${percent(state.progress)}`
        : `checking the Whisper model ${state.model}`;
    },
  };
}

function whisperBanner(setting: 'auto' | 'whisper', state: WhisperState): string {
  switch (state.state) {
    case 'ready':
      return `Whisper ${state.model} (whisper.cpp, on this machine)`;
    case 'unavailable':
      return setting === 'auto'
        ? `pocketsphinx: Whisper ${state.model} is unavailable (${state.reason}); each transcript says so`
        : `Whisper ${state.model}: NOT READY (${state.reason})`;
    default:
      return `Whisper ${state.model} (whisper.cpp): getting the model ready; progress below and in /readyz`;
  }
}

function unavailableLine(
  setting: 'auto' | 'whisper',
  state: Extract<WhisperState, { state: 'unavailable' }>,
) {
  const then =
    setting === 'auto'
      ? 'Transcribing with pocketsphinx instead (far less accurate); each such transcript carries a notice.'
      : 'Transcriptions fail saying so (NOTES_SPEECH_ENGINE=whisper never switches engines); /readyz says not ready.';
  return `Whisper ${state.model} is unavailable: ${state.reason}. ${then} To get Whisper: ${state.remedy}.`;
}

function percent(progress: ModelFetchProgress): string {
  return progress.fraction === undefined ? '' : ` (${Math.floor(progress.fraction * 100)} %)`;
}

const MiB = 1024 * 1024;

/** A console line per 10 % of the download (or every 15 s): bytes, share, time left. */
function throttledProgress(log: (line: string) => void) {
  let lastTenth = -1;
  let lastAt = 0;
  return (model: string, progress: ModelFetchProgress) => {
    const tenth = progress.fraction === undefined ? -1 : Math.floor(progress.fraction * 10);
    if (tenth === lastTenth && Date.now() - lastAt < 15_000) return;
    lastTenth = tenth;
    lastAt = Date.now();
    const total =
      progress.totalBytes === undefined ? '' : ` of ${(progress.totalBytes / MiB).toFixed(1)} MiB`;
    const left = progress.etaSeconds === undefined ? '' : `, about ${Math.ceil(progress.etaSeconds)} s left`;
    log(
      `Whisper ${model}: fetching the model, ${(progress.bytes / MiB).toFixed(1)} MiB${total}${percent(progress)}${left}`,
    );
  };
}

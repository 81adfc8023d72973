import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelFetchProgress } from '../adapters/models/model-fetch.ts';
import {
  provisionVoiceModel,
  VOICE_STATE_FILE,
  type VoiceModelState,
} from '../adapters/speech/voices/voice-provision.ts';
import { whisperModelDir } from '../adapters/speech/whisper/whisper-models.ts';
import { loadConfigFrom } from '../config.ts';

/** What `/readyz` says of the voice model the diarizer tells speakers apart with. */
export interface VoiceModelStatus {
  /** `NOTES_VOICE_MODEL`. */
  setting: string;
  state: VoiceModelState['state'];
  progress?: ModelFetchProgress;
  /** Why it is unavailable, and what to do. */
  reason?: string;
}

export interface VoiceModelStart {
  banner(): string;
  status(): VoiceModelStatus;
}

/**
 * Finds or fetches the voice model as `npm start` begins (voice-provision.ts), in the background; the
 * queue workers use it once ready. Never a readiness failure: without it, speakers are told apart by
 * voice statistics and each transcript's `speakers_by` says so.
 */
export function startVoiceModel(log: (line: string) => void, installedModelsDir: string): VoiceModelStart {
  const config = loadConfigFrom(process.env);
  const setting = config.NOTES_VOICE_MODEL;
  const dir = whisperModelDir(config);
  // A state left by an earlier run says nothing about this one.
  rmSync(join(dir, VOICE_STATE_FILE), { force: true });
  let state: VoiceModelState =
    setting === 'off' ? { state: 'off', model: 'off' } : { state: 'checking', model: setting };
  provisionVoiceModel({
    model: setting,
    dir,
    ...(config.NOTES_VOICE_MODEL_URL ? { baseUrl: config.NOTES_VOICE_MODEL_URL } : {}),
    installedDir: installedModelsDir,
    onState: (next) => {
      const wasFetching = state.state === 'fetching';
      state = next;
      if (next.state === 'ready' && wasFetching)
        log(`Voices: ${next.model} fetched; speakers told apart by it`);
      if (next.state === 'unavailable')
        log(
          `Voices: the voice model ${next.model} is unavailable: ${next.reason}. Speakers are told apart by voice statistics (less reliable) until then; to get it: ${next.remedy}.`,
        );
    },
  }).catch((error: unknown) => {
    state = {
      state: 'unavailable',
      model: setting,
      reason: error instanceof Error ? error.message : String(error),
      remedy: 'see the log above',
    };
  });
  return {
    banner: () => voicesBanner(state),
    status: () => ({
      setting,
      state: state.state,
      ...(state.state === 'fetching' ? { progress: state.progress } : {}),
      ...(state.state === 'unavailable' ? { reason: `${state.reason}; ${state.remedy}` } : {}),
    }),
  };
}

function voicesBanner(state: VoiceModelState): string {
  switch (state.state) {
    case 'off':
      return 'voice statistics (NOTES_VOICE_MODEL=off)';
    case 'ready':
      return `voice model ${state.model} (sherpa-onnx, on this machine)`;
    case 'unavailable':
      return `voice statistics: the voice model ${state.model} is unavailable (${state.reason})`;
    default:
      return `voice model ${state.model}: getting it ready; until then, voice statistics`;
  }
}

import { basename } from 'node:path';
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import { OpenAiCompatibleSpeechToText } from '../adapters/openai/openai-speech-to-text.ts';
import type { VoiceModel } from '../adapters/speech/diarization/types.ts';
import { DiarizingSpeechToText } from '../adapters/speech/diarizing-speech-to-text.ts';
import { PocketsphinxSpeechToText } from '../adapters/speech/pocketsphinx.ts';
import { readVoiceModelState } from '../adapters/speech/voices/voice-provision.ts';
import { ProvisionedSpeechToText } from '../adapters/speech/whisper/provisioned-speech-to-text.ts';
import { whisperModelDir } from '../adapters/speech/whisper/whisper-models.ts';
import { TranscribeSpeechToText } from '../adapters/transcribe/transcribe-speech-to-text.ts';
import { type Config, loadConfig } from '../config.ts';
import type { WorkerDeps } from '../domain/transcription-worker.ts';
import { logger } from '../logging.ts';
import { traced } from '../observability.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { SpeechToText } from '../ports/speech-to-text.ts';
import { getServices, type Services } from './services.ts';

export type WorkerServices = Services & WorkerDeps;

let workerServices: WorkerServices | undefined;

/** The services of the queue and event workers: the API's, plus the configured speech engine. */
export function getWorkerServices(): WorkerServices {
  if (!workerServices) {
    const services = getServices();
    const config = loadConfig();
    workerServices = {
      ...services,
      ...speechEngine(config, services.blobs),
    };
  }
  return workerServices;
}

function speechEngine(
  config: Config,
  blobs: BlobStore,
): Pick<WorkerDeps, 'speech' | 'engineName' | 'language'> {
  if (config.NOTES_SPEECH_ENGINE === 'transcribe') {
    return {
      speech: new TranscribeSpeechToText(traced(new TranscribeClient({ region: config.AWS_REGION })), blobs, {
        bucket: config.NOTES_BUCKET_NAME,
        jobPrefix: config.NOTES_TRANSCRIBE_JOB_PREFIX,
        languageCode: config.NOTES_TRANSCRIBE_LANGUAGE_CODE,
        ...(config.NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN
          ? { dataAccessRoleArn: config.NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN }
          : {}),
      }),
      engineName: 'amazon-transcribe',
      language: config.NOTES_TRANSCRIBE_LANGUAGE_CODE,
    };
  }
  if (config.NOTES_SPEECH_ENGINE === 'openai') {
    if (!config.NOTES_OPENAI_BASE_URL)
      throw new Error('NOTES_SPEECH_ENGINE=openai needs NOTES_OPENAI_BASE_URL');
    return {
      speech: diarizing(
        config,
        new OpenAiCompatibleSpeechToText({
          baseUrl: config.NOTES_OPENAI_BASE_URL,
          model: config.NOTES_OPENAI_MODEL,
          ...(config.NOTES_OPENAI_API_KEY ? { apiKey: config.NOTES_OPENAI_API_KEY } : {}),
          ...(config.NOTES_OPENAI_LANGUAGE ? { language: config.NOTES_OPENAI_LANGUAGE } : {}),
          ...(config.NOTES_OPENAI_PATH ? { path: config.NOTES_OPENAI_PATH } : {}),
        }),
      ),
      engineName: `openai-compatible:${config.NOTES_OPENAI_MODEL}`,
      language: config.NOTES_OPENAI_LANGUAGE ?? 'auto',
    };
  }
  const pocketsphinx = new PocketsphinxSpeechToText({
    ffmpegPath: config.NOTES_FFMPEG_PATH,
    pocketsphinxPath: config.NOTES_POCKETSPHINX_PATH,
    ...chunkSetting(config),
    ...(config.NOTES_WORK_DIR ? { scratchDir: config.NOTES_WORK_DIR } : {}),
  });
  if (config.NOTES_SPEECH_ENGINE === 'auto' || config.NOTES_SPEECH_ENGINE === 'whisper') {
    return {
      speech: diarizing(
        config,
        new ProvisionedSpeechToText({
          mode: config.NOTES_SPEECH_ENGINE,
          modelDir: whisperModelDir(config),
          model: config.NOTES_WHISPER_MODEL,
          ...(config.NOTES_WHISPER_LANGUAGE ? { language: config.NOTES_WHISPER_LANGUAGE } : {}),
          whisper: {
            ffmpegPath: config.NOTES_FFMPEG_PATH,
            ...chunkSetting(config),
            ...(config.NOTES_WORK_DIR ? { scratchDir: config.NOTES_WORK_DIR } : {}),
          },
          fallback: pocketsphinx,
        }),
      ),
      // Each transcript names the engine that made it (RecognitionResult.engine); this is the default.
      engineName: 'local-pocketsphinx',
      language: 'en-US',
    };
  }
  return { speech: diarizing(config, pocketsphinx), engineName: 'local-pocketsphinx', language: 'en-US' };
}

/** Engines without speaker labels get them from the local diarizer (unless NOTES_DIARIZATION=off). */
function diarizing(config: Config, engine: SpeechToText): SpeechToText {
  if (config.NOTES_DIARIZATION === 'off') return engine;
  return new DiarizingSpeechToText(engine, {
    ffmpegPath: config.NOTES_FFMPEG_PATH,
    ...(config.NOTES_VOICE_MODEL === 'off'
      ? {}
      : { voiceModel: () => readyVoiceModel(whisperModelDir(config)) }),
    onDiarizationError: (error) =>
      logger.warn('diarization failed; the transcript keeps one speaker', {
        error: error instanceof Error ? error.message : String(error),
      }),
  });
}

/** The voice model the runtime made ready (voice-provision.ts), if it has; read for each job. */
async function readyVoiceModel(modelDir: string): Promise<VoiceModel | undefined> {
  const state = await readVoiceModelState(modelDir);
  if (state?.state !== 'ready') return undefined;
  // A model given by path is named by its file alone: no path of this machine goes into the data.
  return { path: state.path, name: basename(state.model), binding: state.binding };
}

/** The chunk length the operator set, else none: each local engine has its own default. */
function chunkSetting(config: Config): { chunkMs?: number } {
  const seconds = config.NOTES_RECOGNIZER_CHUNK_SECONDS;
  return seconds === undefined ? {} : { chunkMs: seconds * 1000 };
}

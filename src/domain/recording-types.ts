import { UnsupportedMediaTypeError } from './errors.ts';

/** Audio files: every speech engine reads them. */
export const AUDIO_CONTENT_TYPES = [
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/m4a',
  'audio/x-m4a',
  'audio/aac',
  'audio/ogg',
  'audio/opus',
  'audio/webm',
  'audio/flac',
  'audio/x-flac',
] as const;

/** Video files, of which only the (first) sound track is transcribed. */
export const VIDEO_CONTENT_TYPES = [
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'video/x-matroska',
] as const;

/** Every content type submitTranscription knows (openapi.yaml's AudioContentType). */
export const RECORDING_CONTENT_TYPES = [...AUDIO_CONTENT_TYPES, ...VIDEO_CONTENT_TYPES] as const;

export type SpeechEngineName = 'auto' | 'whisper' | 'local' | 'transcribe' | 'openai';

/** Engines that decode the recording here with ffmpeg: every container ffmpeg reads is accepted. */
const DECODED_HERE: ReadonlySet<SpeechEngineName> = new Set(['auto', 'whisper', 'local']);

/**
 * Containers that Amazon Transcribe does not list among the formats it reads (AMR, FLAC, M4A, MP3, MP4,
 * Ogg, WebM, WAV) and OpenAI's upload API does not either: an engine that is handed the file as uploaded
 * would fail the job after the upload, so such a submission is refused up front instead. The local
 * engine decodes with ffmpeg, which reads them all.
 */
const ONLY_DECODED_LOCALLY: ReadonlySet<string> = new Set(['video/quicktime', 'video/x-matroska']);

/** The content types the configured speech engine can read. */
export function recordingTypesFor(engine: SpeechEngineName): readonly string[] {
  return DECODED_HERE.has(engine)
    ? RECORDING_CONTENT_TYPES
    : RECORDING_CONTENT_TYPES.filter((type) => !ONLY_DECODED_LOCALLY.has(type));
}

/** Throws 415 naming what is accepted when this deployment's engine cannot read `contentType`. */
export function requireReadableRecording(accepted: readonly string[], contentType: string): void {
  if (accepted.includes(contentType)) return;
  throw new UnsupportedMediaTypeError(
    `This service cannot transcribe ${contentType} recordings; it accepts ${accepted.join(', ')}. ` +
      'Convert the recording to one of these (e.g. ffmpeg -i input.mov -c copy output.mp4) and submit it again.',
  );
}

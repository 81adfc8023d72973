/**
 * What a microphone recording is saved as: a container the browser can write and the service reads
 * (submitTranscription's content types), and the title its note starts with.
 */

/** In order of preference: Opus in WebM (Chromium, Firefox), Opus in Ogg, then AAC in MP4 (Safari). */
export const RECORDING_MIME_TYPES = [
  'audio/webm;codecs=opus',
  'audio/webm',
  'audio/ogg;codecs=opus',
  'audio/ogg',
  'audio/mp4',
] as const;

/** The service's content types for what MediaRecorder writes (parameters such as codecs dropped). */
const SERVICE_TYPES: Record<string, string> = {
  'audio/webm': 'audio/webm',
  'video/webm': 'audio/webm',
  'audio/ogg': 'audio/ogg',
  'audio/mp4': 'audio/mp4',
  'video/mp4': 'audio/mp4',
};

const EXTENSIONS: Record<string, string> = { 'audio/webm': 'webm', 'audio/ogg': 'ogg', 'audio/mp4': 'm4a' };

/** The first type this browser records (`isTypeSupported` is MediaRecorder's), or null. */
export function chooseMimeType(isTypeSupported: (type: string) => boolean): string | null {
  return RECORDING_MIME_TYPES.find((type) => isTypeSupported(type)) ?? null;
}

/** The content type to declare at upload for what the recorder wrote, or null if the service does not read it. */
export function serviceContentType(recorderMimeType: string): string | null {
  const base = recorderMimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return SERVICE_TYPES[base] ?? null;
}

export function fileExtension(contentType: string): string {
  return EXTENSIONS[contentType] ?? 'audio';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Recording 27 Nov 2026, 14:05`, in the person's local time: when the recording started. */
export function recordingTitle(startedAt: Date): string {
  const time = `${String(startedAt.getHours()).padStart(2, '0')}:${String(startedAt.getMinutes()).padStart(2, '0')}`;
  return `Recording ${startedAt.getDate()} ${MONTHS[startedAt.getMonth()]} ${startedAt.getFullYear()}, ${time}`;
}
